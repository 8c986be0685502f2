package generator

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

func TestWriteOnlyChanged(t *testing.T) {
	dir := t.TempDir()
	files := []File{{Path: GenFile, Contents: []byte("a")}, {Path: ViewsGenFile, Contents: []byte("b")}}
	changed, err := Write(dir, files)
	if err != nil || !reflect.DeepEqual(changed, []string{GenFile, ViewsGenFile}) {
		t.Fatalf("first Write = %v, %v", changed, err)
	}
	old := time.Now().Add(-time.Hour)
	for _, f := range files {
		if err := os.Chtimes(filepath.Join(dir, f.Path), old, old); err != nil {
			t.Fatal(err)
		}
	}
	files[1].Contents = []byte("c")
	if c, err := Changed(dir, files); err != nil || !reflect.DeepEqual(c, []string{ViewsGenFile}) {
		t.Fatalf("Changed = %v, %v", c, err)
	}
	changed, err = Write(dir, files)
	if err != nil || !reflect.DeepEqual(changed, []string{ViewsGenFile}) {
		t.Fatalf("second Write = %v, %v", changed, err)
	}
	st, err := os.Stat(filepath.Join(dir, GenFile))
	if err != nil || !st.ModTime().Equal(old.Truncate(time.Microsecond)) && st.ModTime().After(old.Add(time.Second)) {
		t.Errorf("unchanged file was rewritten: %v %v", st.ModTime(), err)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, ViewsGenFile)); string(data) != "c" {
		t.Errorf("views file = %q", data)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("temporary files left behind: %v", entries)
	}
}
