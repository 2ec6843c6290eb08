// The one command table: every id of commandIds.ts with its handler (the type makes the table exactly those ids).
import * as vscode from 'vscode';
import { approveStep, rejectStep } from './approvals.js';
import { openArtifact } from './artifactDocuments.js';
import type { CommandId } from './commandIds.js';
import { copyMcpConfig } from './mcpConfigCommands.js';
import { runPipeline } from './pipelineCommands.js';
import { runTeam } from './teams/teamCommands.js';
import { stopTeam } from './teams/teamStop.js';
import type { Services } from './services.js';
import { startSpecWorkflow } from './specCommands.js';
import { advanceStep, cancelExecution, copyHandoffPrompt, pruneFinishedRuns, releaseStep, showExecution, startWorkflow } from './workflowCommands.js';

/** A command handler: the services, then the arguments the editor passes (a tree node, an id, nothing). */
type Handler = (s: Services, ...args: unknown[]) => unknown;

/** Command id → handler. */
export const COMMANDS: { readonly [K in CommandId]: Handler } = {
  'baton.startWorkflow': startWorkflow,
  'baton.startSpecWorkflow': startSpecWorkflow,
  'baton.runPipeline': runPipeline,
  'baton.runTeam': runTeam,
  'baton.stopTeam': stopTeam,
  'baton.advanceStep': advanceStep,
  'baton.approveStep': approveStep,
  'baton.rejectStep': rejectStep,
  'baton.showExecution': showExecution,
  'baton.openArtifact': openArtifact,
  'baton.cancelExecution': cancelExecution,
  'baton.releaseStep': releaseStep,
  'baton.pruneRuns': pruneFinishedRuns,
  'baton.copyMcpConfigClaude': (s) => copyMcpConfig(s, 'claude'),
  'baton.copyMcpConfigCursor': (s) => copyMcpConfig(s, 'cursor'),
  'baton.copyMcpConfigCodex': (s) => copyMcpConfig(s, 'codex'),
  'baton.copyMcpConfigGemini': (s) => copyMcpConfig(s, 'gemini'),
  'baton.copyMcpConfigOpenCode': (s) => copyMcpConfig(s, 'opencode'),
  'baton.copyHandoffPrompt': copyHandoffPrompt,
  'baton.showLog': (s) => s.log.channel.show(),
  // After the database failed to open, or while another process holds it, Refresh tries to open it again now (its
  // cause may be fixed by now); else it re-reads.
  'baton.refresh': (s) => (s.connection.state === 'failed' || s.connection.state === 'waiting' ? s.connection.restart() : s.tree.refresh()),
};

/** Registers every command; a failing handler is logged and shown, never thrown into the editor. */
export function registerCommands(s: Services): vscode.Disposable {
  return vscode.Disposable.from(
    ...Object.entries(COMMANDS).map(([id, handler]) =>
      vscode.commands.registerCommand(id, async (...args: unknown[]) => {
        try {
          return await handler(s, ...args);
        } catch (ex) {
          s.log.error(`${id} failed`, ex);
          void vscode.window.showErrorMessage(`Baton: ${(ex as Error).message ?? String(ex)}`);
          return undefined;
        }
      }),
    ),
  );
}
