package mcpb

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"
	"time"
)

// File is one entry of a bundle.
type File struct {
	Name string // slash-separated path inside the bundle
	Data []byte
	Exec bool // an executable: mode 0755, else 0644
}

// modTime is every entry's time, so a bundle's bytes depend on its
// contents only (the zip format cannot store a time before 1980).
var modTime = time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)

// Binary is one connector binary built for a platform.
type Binary struct {
	GOOS, GOARCH string
	Path         string
}

// Files lays out a bundle: manifest.json, the icon (iconPath, a PNG, when
// not empty) and the commands Entry names for the connector called name,
// built from bins: both Mac binaries merged into one universal binary, a
// launcher choosing between two Linux binaries by the machine's
// architecture.
func Files(m *Manifest, name, iconPath string, bins []Binary) ([]File, error) {
	manifest, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	files := []File{{Name: "manifest.json", Data: append(manifest, '\n')}}
	if iconPath != "" {
		icon, err := os.ReadFile(iconPath)
		if err != nil {
			return nil, fmt.Errorf("reading the icon: %w (\"icon\" in mcpgen.json names a PNG file, relative to the module root)", err)
		}
		if !bytes.HasPrefix(icon, []byte("\x89PNG\r\n\x1a\n")) {
			return nil, fmt.Errorf("the icon %s is not a PNG file: hosts show PNG icons only (512×512 pixels is best)", iconPath)
		}
		files = append(files, File{Name: IconFile, Data: icon})
	}
	byOS := map[string][]Binary{}
	for _, b := range bins {
		byOS[b.GOOS] = append(byOS[b.GOOS], b)
	}
	for goos, list := range byOS {
		sort.Slice(list, func(i, j int) bool { return list[i].GOARCH < list[j].GOARCH })
		entry := Entry(name, goos)
		datas := make([][]byte, len(list))
		for i, b := range list {
			if datas[i], err = os.ReadFile(b.Path); err != nil {
				return nil, err
			}
		}
		switch {
		case len(list) == 1:
			files = append(files, File{Name: entry, Data: datas[0], Exec: true})
		case goos == "darwin":
			fat, err := Universal(datas...)
			if err != nil {
				return nil, err
			}
			files = append(files, File{Name: entry, Data: fat, Exec: true})
		case goos == "linux":
			var arches []string
			for i, b := range list {
				files = append(files, File{Name: entry + "-" + b.GOARCH, Data: datas[i], Exec: true})
				arches = append(arches, b.GOARCH)
			}
			files = append(files, File{Name: entry, Data: launcher(name, arches), Exec: true})
		default:
			return nil, fmt.Errorf("a bundle carries one %s binary; got %d", goos, len(list))
		}
	}
	return files, nil
}

// launcher is a POSIX shell script that runs the binary built for the
// machine's architecture.
func launcher(name string, arches []string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "#!/bin/sh\n# Runs the %s binary built for this machine's architecture.\n", name)
	b.WriteString("case \"$(uname -m)\" in\n")
	for _, a := range arches {
		switch a {
		case "amd64":
			b.WriteString("x86_64|amd64) arch=amd64 ;;\n")
		case "arm64":
			b.WriteString("aarch64|arm64) arch=arm64 ;;\n")
		}
	}
	fmt.Fprintf(&b, "*) echo \"%s: this bundle has no binary for $(uname -m)\" >&2; exit 1 ;;\nesac\n", name)
	fmt.Fprintf(&b, "exec \"$(dirname \"$0\")/%s-$arch\" \"$@\"\n", name)
	return b.Bytes()
}

// Write writes files as a zip: entries sorted by name, every one with the
// same time and a fixed mode, so the same files give the same bytes.
func Write(w io.Writer, files []File) error {
	sorted := append([]File(nil), files...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	zw := zip.NewWriter(w)
	for _, f := range sorted {
		h := &zip.FileHeader{Name: f.Name, Method: zip.Deflate, Modified: modTime}
		mode := fs.FileMode(0o644)
		if f.Exec {
			mode = 0o755
		}
		h.SetMode(mode)
		fw, err := zw.CreateHeader(h)
		if err != nil {
			return err
		}
		if _, err := fw.Write(f.Data); err != nil {
			return err
		}
	}
	return zw.Close()
}
