package chromium

const (
	msgNotFound = "no Chromium found: install one (Debian/Ubuntu: apt-get install chromium; macOS: install Google Chrome) or set MCPGEN_CHROME to the browser's path"
)
