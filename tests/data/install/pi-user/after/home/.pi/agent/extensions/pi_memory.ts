// pi_memory extension, written by: python -m pi_memory install pi
/**
 * pi_memory for pi: the memory index in the prompt, the memory tools, the background jobs.
 *
 * Every call runs the Python package itself (pi's own exec gives a child no stdin), in the
 * session's directory (ctx.cwd), with JSON on stdin and its own timeout; a failure or a timeout
 * costs that one call and never the conversation.
 *
 * - before_agent_start: the index text (`hook --host pi SessionStart`, plain text) is injected
 *   once, on the first run of a session and again after a compaction, and never otherwise, so
 *   the prompt prefix stays byte-identical and the provider's cache keeps hitting. A resumed
 *   session already holds it.
 * - the layout's tools (memory_search and memory_write, or memory) become real pi tools that
 *   run `tool NAME` with the arguments on stdin. A new session's start asks its hook for them
 *   (`"tools": true`: the list on the answer's first line, the index after it, kept for the
 *   first run), as Claude Code's session start renders the index: one process for both. A
 *   session that already holds the index asks `tool --list`.
 * - turn_end, session_before_compact, session_compact and session_shutdown (quit only, awaited
 *   at most 30 s) reach the package's hook, which hands slow work to a background process. A
 *   turn's end is handed over when the next run starts (pi has no prompt hook: that run's start
 *   does it, as Claude Code's next prompt does), once for the last of a run's turns; at quit the
 *   session's end covers it, so a one-prompt session starts no process for it.
 * - what the memory did (learned in the background, put into the prompt) is shown to the
 *   person with ctx.ui.notify, never to the model: the hook marks that line on stderr.
 *
 * Load it with `pi -e path/to/extension.ts`, or let `python -m pi_memory install pi` copy it
 * into pi's extensions directory with the interpreter and package path filled in below.
 */
import { spawn } from "node:child_process";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";

// Filled in by `python -m pi_memory install pi`: the absolute interpreter and package path.
const INSTALLED_COMMAND: string[] | null = ["/usr/bin/python3", "-S", "/opt/pi_memory"];

const CUSTOM_TYPE = "pi_memory";
// How the package's hook marks the line for the person on stderr (stdout is the context).
const NOTICE_PREFIX = "pi_memory notice: ";
const TIMEOUT_MS = {
	inject: 10_000,
	tool: 30_000,
	list: 10_000,
	event: 10_000,
	shutdown: 30_000,
};

interface Run {
	code: number | null;
	stdout: string;
	stderr: string;
	timedOut: boolean;
}

function command(): string[] {
	if (INSTALLED_COMMAND) return INSTALLED_COMMAND;
	// Loaded from the package itself: .../pi_memory/hosts/pi/extension.ts
	const here = dirname(fileURLToPath(import.meta.url));
	return [process.env.PI_MEMORY_PYTHON || "python3", "-S", resolve(here, "..", "..")];
}

/** Run `python pi_memory ARGS` with `input` on stdin; never rejects, never outlives `timeoutMs`. */
function runPackage(args: string[], input: string, cwd: string, timeoutMs: number): Promise<Run> {
	const [program, ...base] = command();
	return new Promise((done) => {
		let stdout = "";
		let stderr = "";
		let timedOut = false;
		let child;
		try {
			child = spawn(program, [...base, ...args], { cwd, stdio: ["pipe", "pipe", "pipe"] });
		} catch (err) {
			done({ code: -1, stdout, stderr: String(err), timedOut });
			return;
		}
		const timer = setTimeout(() => {
			timedOut = true;
			child.kill("SIGKILL");
		}, timeoutMs);
		child.stdout.setEncoding("utf8");
		child.stderr.setEncoding("utf8");
		child.stdout.on("data", (chunk: string) => (stdout += chunk));
		child.stderr.on("data", (chunk: string) => (stderr += chunk));
		child.on("error", (err: Error) => {
			clearTimeout(timer);
			done({ code: -1, stdout, stderr: stderr + String(err), timedOut });
		});
		child.on("close", (code: number | null) => {
			clearTimeout(timer);
			done({ code, stdout, stderr, timedOut });
		});
		child.stdin.on("error", () => {});
		child.stdin.end(input);
	});
}

/** The Claude-Code-shaped event the package's hook reads. */
function hookEvent(ctx: ExtensionContext, extra: Record<string, unknown>): string {
	const sessions = ctx.sessionManager;
	return JSON.stringify({
		session_id: sessions?.getSessionId?.() ?? "",
		transcript_path: sessions?.getSessionFile?.() ?? "",
		cwd: ctx.cwd,
		...extra,
	});
}

async function hook(name: string, ctx: ExtensionContext, extra: Record<string, unknown>, timeoutMs: number) {
	const run = await runPackage(["hook", "--host", "pi", name], hookEvent(ctx, extra), ctx.cwd, timeoutMs);
	tell(ctx, run);
	return run;
}

/** Show the person the notice the hook marked on stderr ("memory: learned 2"); it never
 * enters the model's context. The `notice` setting in memory.json decides what it says. */
function tell(ctx: ExtensionContext, run: Run): void {
	if (run.code !== 0 || !ctx.hasUI) return;
	for (const line of run.stderr.split("\n")) {
		if (!line.startsWith(NOTICE_PREFIX)) continue;
		try {
			ctx.ui.notify(line.slice(NOTICE_PREFIX.length), "info");
		} catch {
			// No UI to show it in: the receipt is in `python -m pi_memory log`.
		}
	}
}

/** Whether the context the model sees still holds our index, and whether it was compacted. */
function contextState(ctx: ExtensionContext): { injected: boolean; compacted: boolean } {
	let injected = false;
	let compacted = false;
	try {
		for (const entry of ctx.sessionManager.buildContextEntries() as any[]) {
			if (entry?.type === "custom_message" && entry.customType === CUSTOM_TYPE) injected = true;
			if (entry?.type === "compaction") compacted = true;
		}
	} catch {
		// No session state (an ephemeral run): inject.
	}
	return { injected, compacted };
}

interface ToolSpec {
	name: string;
	description: string;
	inputSchema: Record<string, unknown>;
}

export default function (pi: ExtensionAPI) {
	let toolsRegistered = false;

	// The index a new session's start answered, for its first run (null: none kept).
	let startIndex: string | null = null;

	async function registerTools(ctx: ExtensionContext) {
		if (toolsRegistered) return;
		const listed = await runPackage(["tool", "--list"], "", ctx.cwd, TIMEOUT_MS.list);
		register(listed.stdout);
	}

	/** Register the tools `listed` declares (a JSON array); false when it is not one. */
	function register(listed: string): boolean {
		let specs: ToolSpec[] = [];
		try {
			specs = JSON.parse(listed);
		} catch {
			return false; // try again at the next session start
		}
		if (!Array.isArray(specs)) return false;
		toolsRegistered = true;
		for (const spec of specs) {
			pi.registerTool({
				name: spec.name,
				label: spec.name,
				description: spec.description,
				parameters: spec.inputSchema as any,
				async execute(_toolCallId: string, params: unknown, _signal: unknown, _onUpdate: unknown, toolCtx: ExtensionContext) {
					const run = await runPackage(["tool", spec.name], JSON.stringify(params ?? {}), toolCtx.cwd, TIMEOUT_MS.tool);
					let ok = false;
					let text = run.timedOut
						? `${spec.name} timed out after ${TIMEOUT_MS.tool / 1000} s`
						: `${spec.name} failed: ${run.stderr.trim() || `exit ${run.code}`}`;
					try {
						const result = JSON.parse(run.stdout);
						ok = result.ok === true;
						text = String(result.text);
					} catch {
						// keep the failure text
					}
					return { content: [{ type: "text", text }], details: { ok }, isError: !ok };
				},
			} as any);
		}
		return true;
	}

	pi.on("session_start", async (_event, ctx) => {
		startIndex = null;
		const state = contextState(ctx);
		if (!state.injected && !state.compacted) {
			const event = { hook_event_name: "SessionStart", source: "startup", tools: true };
			const run = await hook("SessionStart", ctx, event, TIMEOUT_MS.inject);
			const newline = run.stdout.indexOf("\n");
			if (run.code === 0 && newline >= 0) {
				const listed = run.stdout.slice(0, newline);
				if (toolsRegistered || register(listed)) {
					startIndex = run.stdout.slice(newline + 1).trim();
					return;
				}
			}
		}
		await registerTools(ctx);
	});

	pi.on("before_agent_start", async (_event, ctx) => {
		await endTurn(ctx);
		const state = contextState(ctx);
		const kept = startIndex;
		startIndex = null;
		if (state.injected) return;
		let text = kept ?? "";
		if (kept === null || state.compacted) {
			const source = state.compacted ? "compact" : "startup";
			const run = await hook("SessionStart", ctx, { hook_event_name: "SessionStart", source }, TIMEOUT_MS.inject);
			text = run.code === 0 ? run.stdout.trim() : "";
		}
		if (!text) return;
		return { message: { customType: CUSTOM_TYPE, content: text, display: false } };
	});

	// The last turn's end not handed to the hook yet: its event and directory (null: none).
	let turnEnded: { event: string; cwd: string } | null = null;

	async function endTurn(ctx: ExtensionContext) {
		const ended = turnEnded;
		turnEnded = null;
		if (!ended) return;
		tell(ctx, await runPackage(["hook", "--host", "pi", "Stop"], ended.event, ended.cwd, TIMEOUT_MS.event));
	}

	pi.on("turn_end", async (event: any, ctx) => {
		const turn = event?.messageEntryId ?? String(event?.turnIndex ?? "");
		turnEnded = { event: hookEvent(ctx, { hook_event_name: "Stop", turn_id: turn }), cwd: ctx.cwd };
	});

	pi.on("session_before_compact", async (event: any, ctx) => {
		await hook("PreCompact", ctx, { hook_event_name: "PreCompact", trigger: event?.reason ?? "" }, TIMEOUT_MS.event);
	});

	pi.on("session_compact", async (event: any, ctx) => {
		await hook("PostCompact", ctx, { hook_event_name: "PostCompact", trigger: event?.reason ?? "" }, TIMEOUT_MS.event);
	});

	pi.on("session_shutdown", async (event: any, ctx) => {
		if (event?.reason !== "quit") {
			await endTurn(ctx); // reload, new, resume, fork: the session goes on
			return;
		}
		turnEnded = null; // the session's end covers its last turn
		await hook("SessionEnd", ctx, { hook_event_name: "SessionEnd", reason: "quit" }, TIMEOUT_MS.shutdown);
	});
}
