// Host presets: what a view sees of Claude and of ChatGPT — theme
// variables (light and dark), fonts, host capabilities, display modes,
// container sizes and locale — so a view can be checked against both
// without either. The values follow each host's published design tokens
// where known and its observed behaviour otherwise.

import type { McpUiHostCapabilities, McpUiHostContext } from "@modelcontextprotocol/ext-apps/app-bridge";

export type HostName = "claude" | "chatgpt";
export type Theme = "light" | "dark";
export type DisplayMode = "inline" | "fullscreen" | "pip";
export type Width = "desktop" | "tablet" | "mobile";

export interface Preset {
  name: HostName;
  label: string;
  hostInfo: { name: string; version: string };
  capabilities: McpUiHostCapabilities;
  displayModes: DisplayMode[];
  // Inline container width by device class, and the inline maximum height.
  widths: Record<Width, number>;
  maxHeight: number;
  userAgent: string;
  fonts: { sans: string; mono: string; css?: string };
  radius: { xs: string; sm: string; md: string; lg: string; xl: string };
  colors: Record<Theme, Record<string, string>>;
  // The chat's own page around the view (the inspector's stage).
  page: Record<Theme, { background: string; text: string; bubble: string }>;
}

const common = {
  "--font-weight-normal": "400",
  "--font-weight-medium": "500",
  "--font-weight-semibold": "600",
  "--font-weight-bold": "700",
  "--font-text-xs-size": "12px",
  "--font-text-sm-size": "14px",
  "--font-text-md-size": "16px",
  "--font-text-lg-size": "18px",
  "--font-heading-xs-size": "14px",
  "--font-heading-sm-size": "16px",
  "--font-heading-md-size": "18px",
  "--font-heading-lg-size": "20px",
  "--font-heading-xl-size": "24px",
  "--font-heading-2xl-size": "30px",
  "--font-heading-3xl-size": "36px",
  "--font-text-xs-line-height": "1.4",
  "--font-text-sm-line-height": "1.45",
  "--font-text-md-line-height": "1.5",
  "--font-text-lg-line-height": "1.5",
  "--font-heading-xs-line-height": "1.3",
  "--font-heading-sm-line-height": "1.3",
  "--font-heading-md-line-height": "1.25",
  "--font-heading-lg-line-height": "1.25",
  "--font-heading-xl-line-height": "1.2",
  "--font-heading-2xl-line-height": "1.15",
  "--font-heading-3xl-line-height": "1.1",
  "--border-width-regular": "1px",
};

export const presets: Record<HostName, Preset> = {
  claude: {
    name: "claude",
    label: "Claude",
    hostInfo: { name: "Claude (mcpgen inspector)", version: "1.0.0" },
    capabilities: {
      openLinks: {},
      serverTools: { listChanged: true },
      serverResources: { listChanged: true },
      logging: {},
      updateModelContext: { text: {}, structuredContent: {} },
      message: { text: {} },
    } as McpUiHostCapabilities,
    displayModes: ["inline", "fullscreen", "pip"],
    widths: { desktop: 720, tablet: 600, mobile: 358 },
    maxHeight: 500,
    userAgent: "claude-ai (mcpgen inspector)",
    fonts: {
      sans: 'ui-sans-serif, system-ui, -apple-system, "Segoe UI", sans-serif',
      mono: 'ui-monospace, "SFMono-Regular", Menlo, monospace',
    },
    radius: { xs: "4px", sm: "6px", md: "8px", lg: "12px", xl: "16px" },
    colors: {
      light: {
        "--color-background-primary": "#ffffff",
        "--color-background-secondary": "#f5f4ed",
        "--color-background-tertiary": "#f0eee6",
        "--color-background-inverse": "#141413",
        "--color-background-ghost": "transparent",
        "--color-background-info": "#e8f0fb",
        "--color-background-danger": "#fbeaea",
        "--color-background-success": "#e9f5ec",
        "--color-background-warning": "#fdf3e1",
        "--color-background-disabled": "#eeede8",
        "--color-text-primary": "#141413",
        "--color-text-secondary": "#5e5d59",
        "--color-text-tertiary": "#87867f",
        "--color-text-inverse": "#faf9f5",
        "--color-text-ghost": "#87867f",
        "--color-text-info": "#2c63b5",
        "--color-text-danger": "#b53333",
        "--color-text-success": "#2f7d45",
        "--color-text-warning": "#9a5b00",
        "--color-text-disabled": "#b0aea5",
        "--color-border-primary": "#d9d7cd",
        "--color-border-secondary": "#e6e4dc",
        "--color-border-tertiary": "#efeee8",
        "--color-border-inverse": "#3d3d3a",
        "--color-border-ghost": "transparent",
        "--color-border-info": "#9bb8e3",
        "--color-border-danger": "#e3a3a3",
        "--color-border-success": "#a3d1b0",
        "--color-border-warning": "#e8c98f",
        "--color-border-disabled": "#e6e4dc",
        "--color-ring-primary": "#d97757",
        "--color-ring-secondary": "#87867f",
        "--color-ring-inverse": "#faf9f5",
        "--color-ring-info": "#2c63b5",
        "--color-ring-danger": "#b53333",
        "--color-ring-success": "#2f7d45",
        "--color-ring-warning": "#9a5b00",
      },
      dark: {
        "--color-background-primary": "#262624",
        "--color-background-secondary": "#30302e",
        "--color-background-tertiary": "#1f1e1d",
        "--color-background-inverse": "#faf9f5",
        "--color-background-ghost": "transparent",
        "--color-background-info": "#1d2a3d",
        "--color-background-danger": "#3d1f1f",
        "--color-background-success": "#1f3325",
        "--color-background-warning": "#3a2d14",
        "--color-background-disabled": "#30302e",
        "--color-text-primary": "#faf9f5",
        "--color-text-secondary": "#c2c0b6",
        "--color-text-tertiary": "#9c9a92",
        "--color-text-inverse": "#141413",
        "--color-text-ghost": "#9c9a92",
        "--color-text-info": "#8fb4ef",
        "--color-text-danger": "#f09595",
        "--color-text-success": "#8fd1a2",
        "--color-text-warning": "#f0c070",
        "--color-text-disabled": "#6b6a65",
        "--color-border-primary": "#4a4945",
        "--color-border-secondary": "#3d3d3a",
        "--color-border-tertiary": "#33332f",
        "--color-border-inverse": "#d9d7cd",
        "--color-border-ghost": "transparent",
        "--color-border-info": "#3b5a8a",
        "--color-border-danger": "#8a3b3b",
        "--color-border-success": "#3b7a4e",
        "--color-border-warning": "#8a6a2a",
        "--color-border-disabled": "#3d3d3a",
        "--color-ring-primary": "#d97757",
        "--color-ring-secondary": "#9c9a92",
        "--color-ring-inverse": "#141413",
        "--color-ring-info": "#8fb4ef",
        "--color-ring-danger": "#f09595",
        "--color-ring-success": "#8fd1a2",
        "--color-ring-warning": "#f0c070",
      },
    },
    page: {
      light: { background: "#faf9f5", text: "#141413", bubble: "#f0eee6" },
      dark: { background: "#1f1e1d", text: "#faf9f5", bubble: "#30302e" },
    },
  },
  chatgpt: {
    name: "chatgpt",
    label: "ChatGPT",
    hostInfo: { name: "ChatGPT (mcpgen inspector)", version: "1.0.0" },
    capabilities: {
      openLinks: {},
      serverTools: {},
      message: { text: {} },
      updateModelContext: { structuredContent: {} },
    } as McpUiHostCapabilities,
    displayModes: ["inline", "fullscreen", "pip"],
    widths: { desktop: 768, tablet: 640, mobile: 375 },
    maxHeight: 480,
    userAgent: "chatgpt (mcpgen inspector)",
    fonts: {
      sans: 'ui-sans-serif, -apple-system, system-ui, "Segoe UI", Helvetica, Arial, sans-serif',
      mono: 'ui-monospace, "SF Mono", Menlo, Consolas, monospace',
    },
    radius: { xs: "6px", sm: "8px", md: "12px", lg: "16px", xl: "24px" },
    colors: {
      light: {
        "--color-background-primary": "#ffffff",
        "--color-background-secondary": "#f9f9f9",
        "--color-background-tertiary": "#f3f3f3",
        "--color-background-inverse": "#0d0d0d",
        "--color-background-ghost": "transparent",
        "--color-background-info": "#e5f0ff",
        "--color-background-danger": "#ffe9e9",
        "--color-background-success": "#e6f7ee",
        "--color-background-warning": "#fff4e0",
        "--color-background-disabled": "#ececec",
        "--color-text-primary": "#0d0d0d",
        "--color-text-secondary": "#5d5d5d",
        "--color-text-tertiary": "#8f8f8f",
        "--color-text-inverse": "#ffffff",
        "--color-text-ghost": "#8f8f8f",
        "--color-text-info": "#0169cc",
        "--color-text-danger": "#e02e2a",
        "--color-text-success": "#008635",
        "--color-text-warning": "#b05c00",
        "--color-text-disabled": "#b4b4b4",
        "--color-border-primary": "#e5e5e5",
        "--color-border-secondary": "#ececec",
        "--color-border-tertiary": "#f3f3f3",
        "--color-border-inverse": "#424242",
        "--color-border-ghost": "transparent",
        "--color-border-info": "#99c3ff",
        "--color-border-danger": "#ffb3b1",
        "--color-border-success": "#9be0b8",
        "--color-border-warning": "#ffd08a",
        "--color-border-disabled": "#ececec",
        "--color-ring-primary": "#0d0d0d",
        "--color-ring-secondary": "#8f8f8f",
        "--color-ring-inverse": "#ffffff",
        "--color-ring-info": "#0169cc",
        "--color-ring-danger": "#e02e2a",
        "--color-ring-success": "#008635",
        "--color-ring-warning": "#b05c00",
      },
      dark: {
        "--color-background-primary": "#212121",
        "--color-background-secondary": "#303030",
        "--color-background-tertiary": "#181818",
        "--color-background-inverse": "#ffffff",
        "--color-background-ghost": "transparent",
        "--color-background-info": "#0b2a4a",
        "--color-background-danger": "#4a1515",
        "--color-background-success": "#0f3b22",
        "--color-background-warning": "#4a3000",
        "--color-background-disabled": "#303030",
        "--color-text-primary": "#ffffff",
        "--color-text-secondary": "#afafaf",
        "--color-text-tertiary": "#8f8f8f",
        "--color-text-inverse": "#0d0d0d",
        "--color-text-ghost": "#8f8f8f",
        "--color-text-info": "#66aaff",
        "--color-text-danger": "#ff8583",
        "--color-text-success": "#40c977",
        "--color-text-warning": "#ffb547",
        "--color-text-disabled": "#5d5d5d",
        "--color-border-primary": "#424242",
        "--color-border-secondary": "#383838",
        "--color-border-tertiary": "#303030",
        "--color-border-inverse": "#e5e5e5",
        "--color-border-ghost": "transparent",
        "--color-border-info": "#1f5fa8",
        "--color-border-danger": "#a33",
        "--color-border-success": "#1f7a45",
        "--color-border-warning": "#a86a00",
        "--color-border-disabled": "#383838",
        "--color-ring-primary": "#ffffff",
        "--color-ring-secondary": "#8f8f8f",
        "--color-ring-inverse": "#0d0d0d",
        "--color-ring-info": "#66aaff",
        "--color-ring-danger": "#ff8583",
        "--color-ring-success": "#40c977",
        "--color-ring-warning": "#ffb547",
      },
    },
    page: {
      light: { background: "#ffffff", text: "#0d0d0d", bubble: "#f3f3f3" },
      dark: { background: "#212121", text: "#ffffff", bubble: "#303030" },
    },
  },
};

export interface Emulation {
  host: HostName;
  theme: Theme;
  mode: DisplayMode;
  width: Width;
  locale: string;
}

// hostContext is what the view is told of its host (ui/initialize and
// ui/notifications/host-context-changed).
export function hostContext(e: Emulation, tool: unknown): McpUiHostContext {
  const p = presets[e.host];
  const width = p.widths[e.width];
  const dims =
    e.mode === "inline"
      ? { width, maxHeight: p.maxHeight }
      : e.mode === "pip"
        ? { width: Math.min(360, width), maxHeight: 320 }
        : { width: e.width === "mobile" ? width : 1024, height: e.width === "mobile" ? 700 : 640 };
  const variables: Record<string, string> = {
    ...common,
    ...p.colors[e.theme],
    "--font-sans": p.fonts.sans,
    "--font-mono": p.fonts.mono,
    "--border-radius-xs": p.radius.xs,
    "--border-radius-sm": p.radius.sm,
    "--border-radius-md": p.radius.md,
    "--border-radius-lg": p.radius.lg,
    "--border-radius-xl": p.radius.xl,
    "--border-radius-full": "9999px",
    "--shadow-hairline": `0 0 0 1px ${p.colors[e.theme]["--color-border-secondary"]}`,
    "--shadow-sm": "0 1px 2px rgba(0,0,0,.08)",
    "--shadow-md": "0 4px 12px rgba(0,0,0,.10)",
    "--shadow-lg": "0 12px 32px rgba(0,0,0,.16)",
  };
  const mobile = e.width === "mobile";
  return {
    theme: e.theme,
    styles: { variables: variables as any, css: p.fonts.css ? { fonts: p.fonts.css } : undefined },
    displayMode: e.mode,
    availableDisplayModes: p.displayModes,
    containerDimensions: dims as any,
    locale: e.locale,
    timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
    userAgent: p.userAgent,
    platform: mobile ? "mobile" : "web",
    deviceCapabilities: { touch: mobile, hover: !mobile },
    safeAreaInsets: mobile ? { top: 0, right: 0, bottom: 24, left: 0 } : { top: 0, right: 0, bottom: 0, left: 0 },
    toolInfo: tool ? { tool: tool as any } : undefined,
  };
}
