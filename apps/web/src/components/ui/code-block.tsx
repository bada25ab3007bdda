import { Box } from '@mui/material';

/** Code, requests and commands read left to right whatever the page direction. */
export function CodeBlock({
  children,
  label,
  maxHeight = 240,
  fontSize = 13,
}: {
  children: string;
  label: string;
  maxHeight?: number;
  fontSize?: number;
}) {
  return (
    <Box
      component="pre"
      dir="ltr"
      aria-label={label}
      tabIndex={0}
      sx={{
        m: 0,
        mb: 1,
        p: 1.5,
        maxHeight,
        overflow: 'auto',
        textAlign: 'start',
        whiteSpace: 'pre-wrap',
        wordBreak: 'break-all',
        fontFamily: 'monospace',
        fontSize,
        borderRadius: 1,
        bgcolor: 'action.hover',
        color: 'text.primary',
      }}
    >
      {children}
    </Box>
  );
}
