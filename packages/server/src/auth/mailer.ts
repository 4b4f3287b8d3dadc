/** Outgoing mail over SMTP (nodemailer): STARTTLS when the server offers it, certificate checks switchable. */
import type { Transporter } from 'nodemailer';
import type { SmtpConfig } from '../config.js';

export interface Mail {
  to: string;
  subject: string;
  text: string;
  html: string;
}

export interface Mailer {
  send(mail: Mail): Promise<void>;
  close(): void;
}

/** A mailer for the configured SMTP server. */
export function createMailer(smtp: SmtpConfig): Mailer {
  // nodemailer loads on the first mail: most servers never send one (docs/performance.md, "Memory").
  let transport: Promise<Transporter> | null = null;
  const open = async (): Promise<Transporter> => {
    const nodemailer = (await import('nodemailer')).default;
    return nodemailer.createTransport({
      host: smtp.hostname,
      port: smtp.port,
      // Port 465 speaks TLS from the first byte; others upgrade with STARTTLS when offered.
      secure: smtp.port === 465,
      auth: smtp.username ? { user: smtp.username, pass: smtp.password ?? '' } : undefined,
      tls: { rejectUnauthorized: smtp.validateCerts },
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 20_000,
    });
  };
  return {
    async send(mail) {
      transport ??= open();
      await (await transport).sendMail({ from: smtp.mailFrom, ...mail });
    },
    close: () => void transport?.then((opened) => opened.close()),
  };
}
