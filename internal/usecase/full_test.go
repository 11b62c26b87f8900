package usecase

import (
	"context"
	"database/sql"
	"strconv"
	"testing"

	"github.com/superbiz/superbiz/internal/testenv"

	"github.com/superbiz/superbiz/internal/demo"
	"github.com/superbiz/superbiz/internal/model/replay"
	"github.com/superbiz/superbiz/internal/reliability"
	"github.com/superbiz/superbiz/pkg/runrecord"
	"github.com/superbiz/superbiz/pkg/runstore"
	"github.com/superbiz/superbiz/pkg/tools/knowledge"
)

// A run store that fills up at any point of a run (creating the run, the
// audit of a model round or a tool step, the guard review, the result)
// makes Diagnose return an error the caller can tell is a full store —
// never a released answer, never an anonymous internal error.
func TestStoreFullAtAnyPoint(t *testing.T) {
	testenv.SkipShort(t, "runs the demo diagnosis once per failure point of a filling store")
	ctx := context.Background()
	outcomes := map[string]int{}
	for extra := 1; extra <= 40; extra += 3 {
		d, _, _ := demoDeps(t, replay.New(demo.Transcript()))
		limitPages(ctx, t, d.Store, extra)
		out, err := d.Diagnose(ctx, DiagnoseRequest{Query: demo.Query})
		if err == nil {
			// The run was stored whole. The one full-store failure it may
			// hold is the knowledge index's own (lookup_knowledge ERROR, an
			// honest fallback); the run's own records never fail silently.
			switch {
			case out.ReleaseOutcome == "SUCCESS":
				outcomes["fits"]++
			case out.ReleaseOutcome == "FALLBACK" && knowledgeFailed(out.Checks):
				outcomes["index full, fallback"]++
			default:
				t.Fatalf("+%d pages: no error but %s/%s: %+v %+v", extra, out.ReleaseOutcome, out.StopReason, out.Error, out.Checks)
			}
			continue
		}
		if !runstore.IsFull(err) {
			t.Fatalf("+%d pages: error %v is not reported as a full store", extra, err)
		}
		if out.ReleaseOutcome == "SUCCESS" || out.Result != nil {
			t.Fatalf("+%d pages: a released answer came with the error: %+v", extra, out)
		}
		outcomes["full"]++
	}
	if outcomes["full"] < 3 {
		t.Fatalf("only %d of the runs hit the limit: %v", outcomes["full"], outcomes)
	}
	reliability.Record(t, reliability.SectionMutation, "full run store at any point of a run is reported as full, nothing released", map[string]any{"test": t.Name(), "runs_full": outcomes["full"], "runs_fit": outcomes["fits"], "runs_index_full": outcomes["index full, fallback"]})
}

// limitPages lets the store grow by extra pages at most: it holds a read
// transaction on every connection the pool may open (runstore.MaxOpenConns,
// all kept idle afterwards), sets max_page_count on each, and hands them
// back, so the limit holds for every later statement.
func limitPages(ctx context.Context, t *testing.T, store *runstore.Store, extra int) {
	t.Helper()
	tb, err := store.Tables(knowledge.SchemaName)
	if err != nil {
		t.Fatal(err)
	}
	var pages int
	if err := tb.QueryRowContext(ctx, `PRAGMA page_count`).Scan(&pages); err != nil {
		t.Fatal(err)
	}
	held := make([]*sql.Tx, 0, runstore.MaxOpenConns)
	defer func() {
		for _, tx := range held {
			tx.Rollback() //nolint:errcheck // read-only: nothing to keep
		}
	}()
	for range runstore.MaxOpenConns {
		tx, err := tb.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, tx)
		if _, err := tx.ExecContext(ctx, `PRAGMA max_page_count = `+strconv.Itoa(pages+extra)); err != nil {
			t.Fatal(err)
		}
	}
}

// knowledgeFailed reports whether the lookup_knowledge check errored.
func knowledgeFailed(checks []runrecord.Check) bool {
	for _, c := range checks {
		if c.Tool == "lookup_knowledge" && c.EvidenceStatus == "ERROR" {
			return true
		}
	}
	return false
}
