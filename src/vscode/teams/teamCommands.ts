// "Baton: Run Agent Team (YAML)…": pick a team workflow (the workspace's YAML files that are team workflows, and the
// bundled examples in content/teams/), name the instance, and the team starts in the database's owner — this editor,
// or the terminal Baton that holds the database, as `baton start` does — with its panel open beside the work.
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import * as vscode from 'vscode';
import { folderOrAsk } from '../openFolder.js';
import { refuseUntrusted } from '../workspaceTrust.js';
import { kickoffWarnings } from '../../core/worker/kickoffWarnings.js';
import { checkInstanceName, DEFAULT_INSTANCE } from '../../core/worker/workflowVariables.js';
import { bundledContentDir } from '../../host/openBaton.js';
import { showProblems } from '../pipelineCommands.js';
import { ExecutionPanel } from '../panels/executionPanel.js';
import { plural } from '../../shared/labels.js';
import type { Services } from '../services.js';
import { teamFiles, type TeamFile } from './teamFiles.js';

interface TeamItem extends vscode.QuickPickItem {
  file?: TeamFile;
}

/** Workspace YAML files searched (node_modules and dot folders other than .baton left out). */
const FIND_LIMIT = 500;

function bundledTeams(): string[] {
  const dir = join(bundledContentDir(), 'teams');
  try {
    return readdirSync(dir).filter((f) => /\.ya?ml$/.test(f)).map((f) => join(dir, f));
  } catch {
    return [];
  }
}

function item(file: TeamFile, description: string): TeamItem {
  const w = file.workflow;
  const detail = w ? `${Object.keys(w.agents).map((a) => `@${a}`).join(' ')}${w.setup?.length ? ` · ${plural(w.setup.length, 'setup step')}` : ''}` : `$(error) Not valid: ${file.problems[0]?.message ?? 'see the file'}`;
  return { label: `$(organization) ${file.name}`, description, detail, file };
}

async function teamItems(folder: string): Promise<TeamItem[]> {
  const found = await vscode.workspace.findFiles('**/*.{yaml,yml}', '{**/node_modules/**,**/.git/**,**/.workflow/**}', FIND_LIMIT);
  const mine = teamFiles(found.map((u) => u.fsPath));
  const items: TeamItem[] = [{ label: 'Team workflows of this workspace', kind: vscode.QuickPickItemKind.Separator }];
  items.push(...mine.map((f) => item(f, relative(folder, f.path))));
  if (!mine.length) items.push({ label: '$(info) No team workflow files in this workspace yet: start from an example below', alwaysShow: true });
  items.push({ label: 'Examples', kind: vscode.QuickPickItemKind.Separator });
  items.push(...teamFiles(bundledTeams()).map((f) => item(f, `example ${relative(bundledContentDir(), f.path)}`)));
  return items;
}

/** The file the person chose, checked; undefined when they escape or it is not valid. */
async function chooseFile(s: Services, folder: string): Promise<TeamFile | undefined> {
  const picked = await vscode.window.showQuickPick(teamItems(folder), { title: 'Baton: Run Agent Team', placeHolder: 'A team workflow (YAML) of this workspace, or an example', matchOnDescription: true, matchOnDetail: true });
  const file = picked?.file;
  if (!file) return undefined;
  if (!file.workflow) return void (await showProblems(s, 'Team workflow', file.path, file.problems));
  return file;
}

/** `baton.runTeam`: see the file comment. Answers with the team run's id. */
export async function runTeam(s: Services): Promise<string | undefined> {
  const folder = folderOrAsk('Run Agent Team needs an open folder: the agents work in it and the team context (.workflow/) is written there.');
  if (!folder || refuseUntrusted('Run Agent Team')) return undefined;
  // A database that could not be opened is said now, not after the person chose a file and named the instance.
  await s.connection.ready();
  const file = await chooseFile(s, folder);
  if (!file) return undefined;
  const instance = await vscode.window.showInputBox({
    title: `Run ${file.name}`, prompt: 'Instance name (agents are addressed as agent@instance; the context goes to .workflow/<instance>/)',
    value: DEFAULT_INSTANCE, ignoreFocusOut: true,
    validateInput: (v) => {
      try {
        checkInstanceName(v);
        return undefined;
      } catch (ex) {
        return (ex as Error).message;
      }
    },
  });
  if (instance === undefined) return undefined;
  const teams = await s.connection.teams();
  const runId = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `Baton: starting ${file.name}@${instance} (setup steps run first)…` },
    () => teams.start({ file: file.path, instance, cwd: folder }),
  );
  s.log.info(`team ${file.name} started as @${instance} (run ${runId})${teams.local ? '' : ' in the owner process'}`);
  s.tree.refresh();
  ExecutionPanel.show(s.context, s.connection, runId);
  void warnAboutTeamFile(s, file, instance).catch((ex: unknown) => s.log.warn(`showing the warnings of ${file.path} failed`, ex));
  return runId;
}

/**
 * What `baton start` warns about, said in the editor: what the file's parse ignored (a misspelt field), and a kickoff
 * that wakes nobody or names an @agent the team does not have. All of it goes to the log; the first in a notification.
 */
async function warnAboutTeamFile(s: Services, file: TeamFile, instance: string): Promise<void> {
  const lines = [
    ...file.problems.map((p) => `${p.line ? `line ${p.line}: ` : ''}${p.message}`),
    ...(file.workflow ? kickoffWarnings(file.workflow, 'start') : []),
  ];
  if (!lines.length) return;
  for (const line of lines) s.log.warn(`team ${file.path}: ${line}`);
  const more = lines.length > 1 ? ` (and ${lines.length - 1} more; see Baton: Show Log)` : '';
  const open = await vscode.window.showWarningMessage(`Baton: ${file.name}@${instance}: ${lines[0]}${more}`, 'Open File');
  if (open) {
    const line = Math.max(0, (file.problems.find((p) => p.line !== null)?.line ?? 1) - 1);
    await vscode.window.showTextDocument(vscode.Uri.file(file.path), { selection: new vscode.Range(line, 0, line, 0) });
  }
}
