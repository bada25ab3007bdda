import { useEffect, useState } from 'react';

export async function sanitizeMessage(html: string): Promise<string> {
  // Loaded only when there is a message to show: keeps DOMPurify out of the initial bundle.
  const { default: DOMPurify } = await import('dompurify');
  return DOMPurify.sanitize(html, {
    ALLOWED_TAGS: ['b', 'strong', 'i', 'em', 'u', 'a', 'br', 'p', 'span', 'ul', 'ol', 'li', 'code'],
    ALLOWED_ATTR: ['href', 'title', 'target', 'rel'],
  });
}

/** The operator's HTML (maintenance message), sanitized; nothing until it is. */
export function ServerHtml({ html, testId }: { html: string; testId?: string }) {
  const [clean, setClean] = useState('');
  useEffect(() => {
    let alive = true;
    void sanitizeMessage(html).then((value) => {
      if (alive) setClean(value);
    });
    return () => {
      alive = false;
    };
  }, [html]);
  if (!clean) return null;
  // biome-ignore lint/security/noDangerouslySetInnerHtml: sanitized by DOMPurify above
  return <span data-testid={testId} dangerouslySetInnerHTML={{ __html: clean }} />;
}
