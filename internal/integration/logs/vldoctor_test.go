package logs

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/doctor"
	"github.com/superbiz/superbiz/internal/integration"
	"github.com/superbiz/superbiz/internal/vlogstest"
	logtool "github.com/superbiz/superbiz/pkg/tools/logs"
)

// vlSource is a victorialogs [[logs]] entry at url.
func vlSource(name, url string) logtool.Source {
	s := NewEntry()
	s.Name, s.Backend, s.URL, s.Location = name, logtool.BackendVictoriaLogs, url, time.UTC
	return s
}

// doctor's line for a victorialogs source: a real server answering a tiny
// query passes with its count of the last hour; a stopped one, a filter
// the server cannot parse and an unset credential variable fail, each with
// its hint, never printing the credential.
func TestVictoriaLogsDoctor(t *testing.T) {
	s := vlogstest.Single(t)
	now := time.Now().UTC()
	var lines []string
	for i := range 3 {
		lines = append(lines, fmt.Sprintf(`{"ts":%q,"level":"error","service":"checkout","msg":"doctor probe %d"}`, now.Add(-time.Duration(i+1)*time.Minute).Format(time.RFC3339), i))
	}
	vlogstest.Ingest(t, s, lines, "service")
	good := vlSource("store", s.URL)
	good.Filter = `{service="checkout"}`
	badFilter := vlSource("broken", s.URL)
	badFilter.Filter = `{service="checkout"`
	unset := vlSource("secret", s.URL)
	unset.Username, unset.PasswordEnv = "reader", "SUPERBIZ_TEST_UNSET_VL_PW"
	down := vlogstest.Single(t)
	gone := vlSource("gone", down.URL)
	down.Stop(t)
	cfg := configured(good, badFilter, unset, gone)
	got := Source{}.Doctor(context.Background(), cfg, integration.Env{})
	if len(got) != 4 {
		t.Fatalf("got %d results: %+v", len(got), got)
	}
	for i, want := range []struct {
		status       doctor.Status
		detail, hint string
	}{
		{doctor.Pass, "3 entries of {service=\"checkout\"} in the last hour", ""},
		{doctor.Fail, "HTTP 400", "check filter of log source broken"},
		{doctor.Fail, "$SUPERBIZ_TEST_UNSET_VL_PW, which is not set", "export the variable"},
		{doctor.Fail, "not reachable", "is up"},
	} {
		r := got[i]
		if r.Status != want.status || !strings.Contains(r.Detail, want.detail) || !strings.Contains(r.Hint, want.hint) {
			t.Errorf("%s: %s %q (hint %q); want %s with %q and hint %q", r.Check, r.Status, r.Detail, r.Hint, want.status, want.detail, want.hint)
		}
	}
}
