// The mcpgen inspector's entry point (bundled into index.html by
// `go generate ./internal/inspector`). At oauth.CALLBACK_PATH it is the
// OAuth sign-in's redirect URI: it finishes the sign-in and goes back to
// the app.
import { createRoot } from "react-dom/client";
import { App } from "./App";
import * as oauth from "./oauth";
import "./style.css";

const root = createRoot(document.getElementById("root")!);
if (oauth.isCallback()) {
  root.render(<p className="callback">Signing in…</p>);
  oauth
    .finishSignIn()
    .then((back) => location.replace(back))
    .catch((e) =>
      root.render(
        <div className="callback" role="alert">
          <h2>Sign-in failed</h2>
          <p className="err" data-testid="oauth-error">
            {String(e?.message ?? e)}
          </p>
          <a href="/">Back to the inspector</a>
        </div>,
      ),
    );
} else {
  root.render(<App />);
}
