//go:build unix

package parquet

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dfopt/dfopt/plan"
)

// A Parquet path that is not a regular file is refused at once with an
// error naming the file: a named pipe used to block the open forever.
func TestOpenParquetRefusesNonRegularFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe.parquet")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("cannot make a FIFO here: %v", err)
	}
	for _, tc := range []struct{ path, what string }{
		{fifo, "named pipe"},
		{dir, "directory"},
		{"/dev/null", "device"},
	} {
		done := make(chan error, 1)
		go func() {
			_, err := OpenFile("t", tc.path)
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil {
				t.Fatalf("%s: opened", tc.path)
			}
			pe, ok := plan.AsError(err)
			if !ok || pe.Kind != plan.SourceError || !strings.Contains(err.Error(), tc.path) || !strings.Contains(err.Error(), tc.what) {
				t.Errorf("%s: error %v; want a source_error naming the file and saying it is a %s", tc.path, err, tc.what)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: OpenFile still blocked after 5s", tc.path)
		}
	}
}
