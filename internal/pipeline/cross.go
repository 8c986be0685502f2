package pipeline

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
)

// Platform is one operating system and architecture a binary is built for.
type Platform struct{ GOOS, GOARCH string }

func (p Platform) String() string { return p.GOOS + "/" + p.GOARCH }

// BundlePlatforms are the platforms an MCP Bundle carries a binary for: the
// Macs (Apple silicon and Intel), Linux on both architectures and Windows.
var BundlePlatforms = []Platform{
	{"darwin", "amd64"}, {"darwin", "arm64"},
	{"linux", "amd64"}, {"linux", "arm64"},
	{"windows", "amd64"},
}

// ParsePlatforms parses a comma-separated list such as
// "darwin/arm64,linux/amd64"; each must be one of BundlePlatforms.
func ParsePlatforms(list string) ([]Platform, error) {
	var out []Platform
	seen := map[Platform]bool{}
	for _, s := range strings.Split(list, ",") {
		s = strings.TrimSpace(s)
		goos, goarch, _ := strings.Cut(s, "/")
		p := Platform{goos, goarch}
		known := false
		for _, b := range BundlePlatforms {
			known = known || b == p
		}
		if !known {
			var valid []string
			for _, b := range BundlePlatforms {
				valid = append(valid, b.String())
			}
			return nil, fmt.Errorf("unknown platform %q: valid platforms are %s", s, strings.Join(valid, ", "))
		}
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out, nil
}

// BuildPlatforms runs go build for each platform, one after another (each
// build already uses every core), after a Generate: it writes
// dir/GOOS-GOARCH/NAME (NAME.exe for Windows), where NAME is the module
// directory's name, and returns the path of each binary. The views are
// type-checked first when Options.TypeCheck is set; their errors are added
// to rep and fail the build.
func (p *Project) BuildPlatforms(ctx context.Context, rep *Report, platforms []Platform, dir string) (map[Platform]string, error) {
	if p.opts.TypeCheck && p.hasUI() {
		diags, err := typeCheck(ctx, p.opts.Dir)
		if err != nil {
			return nil, err
		}
		rep.Diagnostics.Append(diags)
		rep.Diagnostics.Sort()
		if diags.HasErrors() {
			return nil, rep.Diagnostics.Err(p.opts.Dir)
		}
	}
	bins := map[Platform]string{}
	for _, pl := range platforms {
		out := binaryPath(p.opts.Dir, filepath.Join(dir, pl.GOOS+"-"+pl.GOARCH)+string(filepath.Separator), pl.GOOS)
		if err := p.goBuild(ctx, out, pl.GOOS, pl.GOARCH); err != nil {
			return bins, fmt.Errorf("building for %s: %w", pl, err)
		}
		bins[pl] = out
	}
	return bins, nil
}
