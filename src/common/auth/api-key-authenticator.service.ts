import { Injectable } from '@nestjs/common';
import { timingSafeEqual } from 'node:crypto';
import { PrismaService } from '../../database/prisma.service';
import { hashApiKeyToken, isWellFormedApiKeyToken } from './api-key-token';
import type { Principal } from './principal';

@Injectable()
export class ApiKeyAuthenticator {
  constructor(private readonly prisma: PrismaService) {}

  /** The principal of a live key, or undefined for a malformed, unknown or revoked one. */
  async authenticate(token: string): Promise<Principal | undefined> {
    if (!isWellFormedApiKeyToken(token)) return undefined;
    const hash = hashApiKeyToken(token);
    const key = await this.prisma.apiKey.findUnique({
      where: { keyHash: hash },
      select: { id: true, organizationId: true, scopes: true, revokedAt: true, keyHash: true },
    });
    if (!key || key.revokedAt !== null) return undefined;
    // The index look-up already matched; the constant-time compare keeps the final check free of timing signal.
    if (!timingSafeEqual(Buffer.from(key.keyHash, 'hex'), Buffer.from(hash, 'hex'))) return undefined;
    return { apiKeyId: key.id, organizationId: key.organizationId, scopes: key.scopes };
  }
}
