package runstore_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/superbiz/superbiz/pkg/runstore"
)

// Open creates the store file and applies its migrations; a session is the
// conversation runs share, and the latest one is where --continue resumes.
func ExampleOpen() {
	dir, err := os.MkdirTemp("", "runstore-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()
	st, err := runstore.Open(ctx, filepath.Join(dir, "runs.db"))
	if err != nil {
		panic(err)
	}
	defer st.Close()
	for _, id := range []string{"incident-42", "incident-43"} {
		if _, err := st.EnsureSession(ctx, id); err != nil {
			panic(err)
		}
	}
	created, err := st.EnsureSession(ctx, "incident-42")
	fmt.Println("created again:", created, err)
	latest, ok, err := st.LatestSessionID(ctx)
	fmt.Println("latest:", latest, ok, err)
	// Output:
	// created again: false <nil>
	// latest: incident-43 true <nil>
}
