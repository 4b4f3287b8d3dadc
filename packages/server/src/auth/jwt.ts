/** Access and refresh JWTs: HS256 signed with SERVICE_SECRET, the algorithm pinned on verify. */
import { SignJWT, jwtVerify } from 'jose';

export type TokenKind = 'access' | 'refresh';

export interface TokenClaims {
  /** Token record id (auth_tokens.jti). */
  jti: string;
  /** User id. */
  sub: string;
  /** Session id. */
  sid: string;
  typ: TokenKind;
  exp: number;
}

export interface JwtCodec {
  sign(claims: Omit<TokenClaims, 'exp'>, expiresAt: Date): Promise<string>;
  /** The claims of a valid, unexpired token of the kind, or null. */
  verify(token: string, kind: TokenKind): Promise<TokenClaims | null>;
}

const ISSUER = 'sightline';

/** A codec bound to the deployment's secret. */
export function createJwtCodec(secret: string): JwtCodec {
  const key = new TextEncoder().encode(secret);
  return {
    sign: (claims, expiresAt) =>
      new SignJWT({ sid: claims.sid, typ: claims.typ })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setJti(claims.jti)
        .setSubject(claims.sub)
        .setIssuer(ISSUER)
        .setIssuedAt()
        .setExpirationTime(Math.floor(expiresAt.getTime() / 1000))
        .sign(key),
    async verify(token, kind) {
      try {
        const { payload } = await jwtVerify(token, key, { algorithms: ['HS256'], issuer: ISSUER });
        if (payload.typ !== kind || typeof payload.jti !== 'string' || typeof payload.sub !== 'string' || typeof payload.sid !== 'string') {
          return null;
        }
        return { jti: payload.jti, sub: payload.sub, sid: payload.sid, typ: kind, exp: payload.exp ?? 0 };
      } catch {
        return null;
      }
    },
  };
}
