// The mcpgen inspector's entry point (bundled into index.html by
// `go generate ./internal/inspector`).
import { createRoot } from "react-dom/client";
import { App } from "./App";
import "./style.css";

createRoot(document.getElementById("root")!).render(<App />);
