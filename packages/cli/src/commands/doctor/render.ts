import type { Style } from '../claim/render.js';
import { printable } from '../claim/render.js';
import type { ClientReport } from './client-checks.js';
import type { Discovery } from './discovery.js';

/** The `--json` document: what was read, and each client's outcome. */
export interface DoctorReport {
  readonly target: string;
  readonly kind: Discovery['kind'];
  readonly issuer: string | null;
  readonly documents: {
    readonly protectedResourceMetadata: string | null;
    readonly authorizationServerMetadata: string | null;
  };
  readonly ok: boolean;
  readonly clients: readonly ClientReport[];
}

/** Gathers the report of one run. */
export function doctorReport(discovery: Discovery, clients: readonly ClientReport[]): DoctorReport {
  return {
    target: discovery.target,
    kind: discovery.kind,
    issuer: discovery.issuer ?? null,
    documents: {
      protectedResourceMetadata: discovery.protectedResourceMetadataUrl ?? null,
      authorizationServerMetadata: discovery.authorizationServerMetadataUrl ?? null,
    },
    ok: clients.every((client) => client.ok),
    clients,
  };
}

/**
 * The report for a person: a line per client (what it would use, or what stops it), then a line per finding
 * with its fix. Everything the server sent goes through printable(), so no field can forge a line.
 */
export function doctorText(report: DoctorReport, style: Style): string {
  const lines = [
    `${style.bold('keyhold doctor')} ${printable(report.target)} (${report.kind === 'resource' ? 'MCP endpoint' : 'issuer'})`,
  ];
  if (report.documents.protectedResourceMetadata !== null) {
    lines.push(`  resource metadata: ${printable(report.documents.protectedResourceMetadata)}`);
  }
  if (report.documents.authorizationServerMetadata !== null) {
    lines.push(`  server metadata:   ${printable(report.documents.authorizationServerMetadata)}`);
  }
  lines.push('');
  for (const client of report.clients) {
    const how =
      client.registration === null || client.authMethod === null
        ? ''
        : ` (${client.registration.toUpperCase()}, ${client.authMethod})`;
    const errors = client.findings.filter((finding) => finding.severity === 'error').length;
    lines.push(
      `${client.ok ? 'OK  ' : 'FAIL'} ${style.bold(client.name)}${how}${errors > 0 ? `: ${errors} problem${errors === 1 ? '' : 's'}` : ''}`,
    );
    for (const finding of client.findings) {
      lines.push(
        `     ${finding.severity === 'error' ? 'error  ' : 'warning'} ${printable(finding.message)} Fix: ${printable(finding.fix)}`,
      );
    }
  }
  const failed = report.clients.filter((client) => !client.ok).map((client) => client.name);
  lines.push(
    '',
    failed.length === 0
      ? 'Every client would get through.'
      : `${failed.length} client${failed.length === 1 ? '' : 's'} would fail: ${failed.join(', ')}.`,
  );
  return `${lines.join('\n')}\n`;
}
