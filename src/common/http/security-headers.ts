import type { INestApplication } from '@nestjs/common';
import helmet from 'helmet';

/**
 * Helmet's headers on every answer (nosniff, no-referrer, HSTS, frame denial...), with a
 * Content-Security-Policy that still lets Swagger UI at /docs work: the page Nest serves carries
 * inline styles, and Swagger UI draws its icons from data: URLs. Scripts stay same-origin only.
 * Routes that need other values (the icon content route) set their own after this middleware.
 */
export function useSecurityHeaders(app: INestApplication): void {
  app.use(
    helmet({
      contentSecurityPolicy: {
        useDefaults: true,
        directives: {
          'style-src': ["'self'", "'unsafe-inline'"],
          'img-src': ["'self'", 'data:'],
          // Served over plain HTTP behind a TLS-terminating proxy or locally: upgrading would break /docs there.
          'upgrade-insecure-requests': null,
        },
      },
      referrerPolicy: { policy: 'no-referrer' },
    }),
  );
}
