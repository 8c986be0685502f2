// The module every generated view entry imports: it starts the handshake with
// the host and renders the view's default export into #root.

import { Component, createElement, type ComponentType, type ReactNode } from "react";
import { createRoot } from "react-dom/client";
import { connect } from "mcpgen/ui";

class Boundary extends Component<{ name: string; children?: ReactNode }, { error?: Error }> {
  state: { error?: Error } = {};
  static getDerivedStateFromError(error: Error) {
    return { error };
  }
  componentDidCatch(error: Error) {
    console.error(`mcpgen: view ${this.props.name} failed:`, error);
  }
  render() {
    if (this.state.error) {
      return createElement(
        "pre",
        { role: "alert", style: { color: "#b00020", whiteSpace: "pre-wrap", font: "12px monospace", margin: 8 } },
        `view ${this.props.name}: ${this.state.error.message}`,
      );
    }
    return this.props.children;
  }
}

export function mount(name: string, View: ComponentType | undefined) {
  connect(name).catch(() => {}); // requests report the failure to their callers
  const el = document.getElementById("root")!;
  if (typeof View !== "function" && (typeof View !== "object" || View === null)) {
    el.textContent = `view ${name}: the default export is not a React component`;
    return;
  }
  createRoot(el).render(createElement(Boundary, { name }, createElement(View)));
}
