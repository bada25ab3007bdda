import TableChartOutlined from '@mui/icons-material/TableChartOutlined';
import {
  Box,
  Button,
  Card,
  CardContent,
  Stack,
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TableRow,
  Typography,
} from '@mui/material';
import { type ReactNode, useId, useState } from 'react';
import { useTranslation } from 'react-i18next';

export type TChartTable = { head: string[]; rows: Array<Array<string | number>> };

/**
 * One analytics chart: a titled card whose data can also be read as a table (for screen readers,
 * keyboard users and copying numbers), and a plain sentence when there is nothing to draw.
 */
export function ChartCard({
  title,
  description,
  testId,
  isEmpty,
  emptyText,
  table,
  children,
}: {
  title: string;
  description: string;
  testId: string;
  isEmpty: boolean;
  emptyText: string;
  table: TChartTable;
  children: ReactNode;
}) {
  const { t } = useTranslation();
  const [asTable, setAsTable] = useState(false);
  const titleId = useId();
  const descId = useId();
  return (
    <Card sx={{ height: '100%' }} data-testid={testId} component="section" aria-labelledby={titleId}>
      <CardContent>
        <Stack direction="row" spacing={1} sx={{ alignItems: 'flex-start', justifyContent: 'space-between' }}>
          <Box>
            <Typography variant="h5" component="h2" id={titleId}>
              {title}
            </Typography>
            <Typography variant="body2" color="text.secondary" id={descId}>
              {description}
            </Typography>
          </Box>
          {!isEmpty && (
            <Button
              size="small"
              startIcon={<TableChartOutlined />}
              aria-pressed={asTable}
              onClick={() => setAsTable((v) => !v)}
              sx={{ flexShrink: 0 }}
            >
              {t('analytics.showTable')}
            </Button>
          )}
        </Stack>
        <Box sx={{ mt: 2 }}>
          {isEmpty ? (
            <Typography color="text.secondary" data-testid={`${testId}-empty`}>
              {emptyText}
            </Typography>
          ) : asTable ? (
            <TableContainer sx={{ maxHeight: 320 }}>
              <Table size="small" stickyHeader aria-labelledby={titleId}>
                <TableHead>
                  <TableRow>
                    {table.head.map((h) => (
                      <TableCell key={h} scope="col" sx={{ textAlign: 'start' }}>
                        {h}
                      </TableCell>
                    ))}
                  </TableRow>
                </TableHead>
                <TableBody>
                  {table.rows.map((row) => (
                    <TableRow key={String(row[0])}>
                      {row.map((cell, i) => (
                        <TableCell
                          // biome-ignore lint/suspicious/noArrayIndexKey: columns are positional
                          key={i}
                          component={i === 0 ? 'th' : 'td'}
                          scope={i === 0 ? 'row' : undefined}
                          sx={{ textAlign: 'start' }}
                        >
                          <span dir="auto">{cell}</span>
                        </TableCell>
                      ))}
                    </TableRow>
                  ))}
                </TableBody>
              </Table>
            </TableContainer>
          ) : (
            <Box role="figure" aria-labelledby={titleId} aria-describedby={descId} dir="ltr">
              {children}
            </Box>
          )}
        </Box>
      </CardContent>
    </Card>
  );
}
