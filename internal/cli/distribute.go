package cli

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/mcpgen/mcpgen/internal/mcpb"
	"github.com/mcpgen/mcpgen/internal/pipeline"
	"github.com/mcpgen/mcpgen/internal/serverjson"
)

func platformList() string {
	var s []string
	for _, p := range pipeline.BundlePlatforms {
		s = append(s, p.String())
	}
	return strings.Join(s, ",")
}

// runDistribute is mcpgen build --mcpb and/or --server-json.
func runDistribute(c *ucli.Context, dir, out string) error {
	if c.IsSet("os") || c.IsSet("arch") {
		return usagef("--os and --arch build one binary; --mcpb builds for every platform (--platforms chooses)")
	}
	platforms := pipeline.BundlePlatforms
	if c.IsSet("platforms") {
		if !c.Bool("mcpb") {
			return usagef("--platforms goes with --mcpb")
		}
		var err error
		if platforms, err = pipeline.ParsePlatforms(c.String("platforms")); err != nil {
			return usagef("%v", err)
		}
	}
	stdout, stderr := c.App.Writer, c.App.ErrWriter
	proj, err := pipeline.Open(pipeline.Options{
		Dir: dir, Minify: true, Stdout: stdout, Stderr: stderr,
		TypeCheck: !c.Bool("no-typecheck"), Version: c.String("version"),
	})
	if err != nil {
		return err
	}
	defer proj.Close()
	version := c.String("version")

	rep, err := proj.Generate(c.Context, pipeline.GenerateOptions{})
	if rep != nil && err == nil {
		printDiagnostics(stderr, rep.Dir, rep.Diagnostics)
	}
	if err != nil {
		return err
	}
	var sum string
	if c.Bool("mcpb") {
		// What the manifest needs is checked before the (long) builds.
		var goos []string
		for _, pl := range platforms {
			if !slices.Contains(goos, pl.GOOS) {
				goos = append(goos, pl.GOOS)
			}
		}
		m, err := mcpb.NewManifest(rep.Project, version, goos)
		if err != nil {
			return err
		}
		tmp, err := os.MkdirTemp("", "mcpgen-mcpb-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		bins, err := proj.BuildPlatforms(c.Context, rep, platforms, tmp)
		if err != nil {
			return err
		}
		bundle, err := writeBundle(rep, m, bins, out)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(bundle)
		if err != nil {
			return err
		}
		h := sha256.Sum256(data)
		sum = hex.EncodeToString(h[:])
		fmt.Fprintf(stdout, "built %s%s, for %s\n", bundle, contents(rep), joinPlatforms(platforms))
	}
	if c.Bool("server-json") {
		target := filepath.Join(rep.Dir, "server.json")
		if out != "" && !c.Bool("mcpb") {
			target = out
		}
		s, err := serverjson.New(rep.Project, serverjson.Options{Version: version, BundleSHA256: sum})
		if err != nil {
			return err
		}
		if err := os.WriteFile(target, s.Marshal(), 0o644); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %s (%s %s)\n", target, s.Name, s.Version)
	}
	return nil
}

// writeBundle writes the .mcpb of m and the built binaries to out (default
// DIR/NAME.mcpb, or NAME.mcpb inside out when it is a directory) and
// returns its path.
func writeBundle(rep *pipeline.Report, m *mcpb.Manifest, bins map[pipeline.Platform]string, out string) (string, error) {
	p := rep.Project
	var list []mcpb.Binary
	for pl, path := range bins {
		list = append(list, mcpb.Binary{GOOS: pl.GOOS, GOARCH: pl.GOARCH, Path: path})
	}
	icon := ""
	if p.Meta != nil && p.Meta.Icon != "" {
		icon = filepath.Join(rep.Dir, filepath.FromSlash(p.Meta.Icon))
	}
	files, err := mcpb.Files(m, p.Name, icon, list)
	if err != nil {
		return "", err
	}
	var buf bytes.Buffer
	if err := mcpb.Write(&buf, files); err != nil {
		return "", err
	}
	target := bundlePath(rep.Dir, out)
	if err := os.WriteFile(target, buf.Bytes(), 0o644); err != nil {
		return "", err
	}
	return target, nil
}

func bundlePath(dir, out string) string {
	name := filepath.Base(dir) + ".mcpb"
	if out == "" {
		return filepath.Join(dir, name)
	}
	if strings.HasSuffix(out, string(filepath.Separator)) {
		return filepath.Join(out, name)
	}
	if fi, err := os.Stat(out); err == nil && fi.IsDir() {
		return filepath.Join(out, name)
	}
	return out
}

func joinPlatforms(ps []pipeline.Platform) string {
	var s []string
	for _, p := range ps {
		s = append(s, p.String())
	}
	return strings.Join(s, ", ")
}
