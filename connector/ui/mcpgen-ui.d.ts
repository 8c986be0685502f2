declare module "mcpgen/ui" {
  export type DisplayMode = "inline" | "fullscreen" | "pip";
  export type Theme = "light" | "dark";

  export interface ContentBlock {
    type: string;
    text?: string;
    data?: string;
    mimeType?: string;
    uri?: string;
    [key: string]: unknown;
  }

  export interface CallToolResult<T = Record<string, unknown>> {
    content: ContentBlock[];
    structuredContent?: T;
    isError?: boolean;
    _meta?: Record<string, unknown>;
    [key: string]: unknown;
  }

  export interface ReadResourceResult {
    contents: { uri: string; mimeType?: string; text?: string; blob?: string; [key: string]: unknown }[];
    [key: string]: unknown;
  }

  export interface HostContext {
    theme?: Theme;
    styles?: { variables?: Record<string, string | undefined>; css?: { fonts?: string } };
    displayMode?: DisplayMode;
    availableDisplayModes?: DisplayMode[];
    containerDimensions?: { width?: number; maxWidth?: number; height?: number; maxHeight?: number };
    locale?: string;
    timeZone?: string;
    userAgent?: string;
    platform?: "web" | "desktop" | "mobile";
    deviceCapabilities?: { touch?: boolean; hover?: boolean };
    safeAreaInsets?: { top: number; right: number; bottom: number; left: number };
    toolInfo?: { id?: string | number; tool: { name: string; [key: string]: unknown } };
    [key: string]: unknown;
  }

  export interface ModelContext {
    content?: ContentBlock[];
    structuredContent?: Record<string, unknown>;
  }

  /**
   * The connector's tools, name → { input; output }: ui/mcpgen.d.ts, which
   * mcpgen generates from the Go handlers, fills it in (it extends the global
   * interface Tools there).
   */
  export interface ToolMap {}
  /** A tool's name. */
  export type ToolName = keyof ToolMap & string;
  /** The arguments of tool N: optional when the tool requires none. */
  export type ToolArgs<N extends ToolName> = ToolMap[N] extends { input: infer I }
    ? ({} extends I ? [args?: I] : [args: I])
    : [args?: Record<string, unknown>];
  /** The structuredContent of tool N's result. */
  export type ToolOutput<N extends ToolName> = ToolMap[N] extends { output: infer O } ? O : unknown;
  /**
   * What the untyped callTool overload accepts as a name: a name computed at
   * run time (string), or any name once a type argument is given; not a
   * literal name of the tool map (its arguments are checked by the typed
   * overload) nor, without a type argument, a literal name outside it.
   */
  export type UntypedToolName<N extends string> = [ToolName] extends [never]
    ? unknown
    : N extends ToolName
      ? never
      : string extends N
        ? unknown
        : ToolName;

  export type LogLevel = "debug" | "info" | "notice" | "warning" | "error" | "critical" | "alert" | "emergency";

  /** Actions toward the host. */
  export interface App {
    /**
     * Calls a tool of this connector (tools/call through the host). The
     * arguments and the result's structuredContent are typed by the tool map
     * that mcpgen generates (ToolMap, in ui/mcpgen.d.ts).
     */
    callTool<N extends ToolName>(name: N, ...args: ToolArgs<N>): Promise<CallToolResult<ToolOutput<N>>>;
    /**
     * Calls a tool with the result's structuredContent typed as T, the
     * arguments unchecked: callTool<Result>(name, args), or a name computed
     * at run time. A literal tool name without a type argument takes the
     * typed overload above, so wrong arguments and misspelt names are errors.
     */
    callTool<T = Record<string, unknown>, N extends string = string>(name: N & UntypedToolName<N>, args?: Record<string, unknown>): Promise<CallToolResult<T>>;
    /** Reads a resource of this connector (resources/read through the host). */
    readResource(uri: string): Promise<ReadResourceResult>;
    /** Asks the host to open a URL (ui/open-link). */
    openLink(url: string): Promise<void>;
    /** Sends a user message into the conversation (ui/message). */
    sendMessage(text: string): Promise<void>;
    /** Gives the model context for its next turn (ui/update-model-context). */
    updateModelContext(context: string | ModelContext): Promise<void>;
    /** Asks for a display mode; resolves to the mode the host granted. */
    requestDisplayMode(mode: DisplayMode): Promise<DisplayMode>;
    /** Sends a log message to the host (notifications/message). */
    log(level: LogLevel, data: unknown): void;
  }

  /** Thrown when the host answers a request with a JSON-RPC error. */
  export class HostError extends Error {
    code: number;
    data: unknown;
    constructor(code: number, message: string, data?: unknown);
  }

  /** The structuredContent of the tool result; undefined until it arrives. */
  export function useToolData<T = Record<string, unknown>>(): T | undefined;
  /** The whole tool result (content, structuredContent, isError). */
  export function useToolResult<T = Record<string, unknown>>(): CallToolResult<T> | undefined;
  /** The tool's arguments; undefined until the host sends them. */
  export function useToolInput<T = Record<string, unknown>>(): T | undefined;
  /** The arguments while the model is still streaming them. */
  export function useToolInputPartial<T = Record<string, unknown>>(): Partial<T> | undefined;
  /** Set when the host cancelled the tool call. */
  export function useToolCancelled(): { reason?: string } | undefined;
  /** The host's context: theme, locale, display mode, container size ... */
  export function useHostContext(): HostContext;
  /** The current display mode ("inline" until the host says otherwise). */
  export function useDisplayMode(): DisplayMode;
  /** Whether the handshake with the host has completed. */
  export function useConnected(): boolean;
  /** Actions toward the host. The returned object is stable. */
  export function useApp(): App;
  /** Runs fn when the host tears the view down; returns an unregister function. */
  export function onTeardown(fn: () => void | Promise<void>): () => void;
  /** Starts the handshake; mcpgen's generated entry calls it for you. */
  export function connect(name: string, version?: string): Promise<void>;
}
