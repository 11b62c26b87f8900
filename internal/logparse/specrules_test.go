package logparse

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// specText is docs/SPEC.md, the product contract these rules are read from.
func specText(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "SPEC.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// specPart is the SPEC text from the first line starting with from up to
// the next occurrence of to.
func specPart(t *testing.T, spec, from, to string) string {
	t.Helper()
	i := strings.Index(spec, from)
	if i < 0 {
		t.Fatalf("SPEC no longer says %q", from)
	}
	j := strings.Index(spec[i:], to)
	if j < 0 {
		t.Fatalf("SPEC no longer says %q after %q", to, from)
	}
	return spec[i : i+j]
}

// TestSpecServiceRule ties SPEC's service rule (issue 36 §2) to the
// reader: every member SPEC names as a service by convention is read as
// the entry's service, and every name SPEC says is a field (a logger, a
// class, a component, a module, a thread) is never the service; on a
// Kubernetes node log path a generic container name gives the pod's
// workload, as SPEC lists them.
func TestSpecServiceRule(t *testing.T) {
	spec := specText(t)
	named := specPart(t, spec, "*The service.*", "A logger, a class")
	keys := regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(named, -1)
	if len(keys) < 8 {
		t.Fatalf("SPEC's service paragraph names %d members: %q", len(keys), named)
	}
	for _, m := range keys {
		k := m[1]
		role, _ := keyRole([]byte(k))
		if role != roleService && !strings.Contains(k, "/") {
			t.Errorf("SPEC names %q a service by convention; the reader takes it as role %d", k, role)
		}
		if strings.Contains(k, "/") { // app_kubernetes_io/name: a kubernetes label
			if r, _ := keyRole([]byte("kubernetes.labels." + strings.TrimPrefix(k, "kubernetes.labels."))); r != roleService {
				t.Errorf("SPEC names the label %q a service; the reader does not", k)
			}
		}
	}
	fields := specPart(t, spec, "A logger, a class", "never its")
	for _, f := range regexp.MustCompile("`([a-z_]+)`").FindAllStringSubmatch(fields, -1) {
		if role, _ := keyRole([]byte(f[1])); role == roleService {
			t.Errorf("SPEC says %q is a field, never the service; the reader takes it as the service", f[1])
		}
	}
	// a Kubernetes node log: the generic container names SPEC lists are
	// the reader's, and its examples of a pod's workload hold
	kube := specPart(t, spec, "On a Kubernetes node log path", "\n\n")
	generic := specPart(t, kube, "when that name is generic", ")")
	var names []string
	for _, m := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(generic, -1) {
		names = append(names, m[1])
	}
	if !slices.Equal(names, GenericContainers) {
		t.Errorf("SPEC's generic container names %q; the reader's %q", names, GenericContainers)
	}
	examples := regexp.MustCompile("`([^`]+)` → `([^`]+)`").FindAllStringSubmatch(kube, -1)
	if len(examples) < 3 {
		t.Fatalf("SPEC gives %d examples of a pod's workload: %q", len(examples), kube)
	}
	for _, m := range examples {
		if got := PodWorkload(m[1]); got != m[2] {
			t.Errorf("SPEC says pod %s is of %s; the reader says %q", m[1], m[2], got)
		}
		for _, c := range GenericContainers {
			if got := PathService("/var/log/pods/ns_" + m[1] + "_0f8e7d6c-5b4a-4392-8170-6e5d4c3b2a19/" + c + "/0.log"); got != m[2] {
				t.Errorf("pod %s, container %s: service %q, SPEC says %s", m[1], c, got, m[2])
			}
		}
	}
	// a JSON line whose logger names a class and whose app names the
	// service: the service is the app, the logger a field
	var r Record
	tc := &TimeCtx{Loc: time.UTC}
	parseJSON([]byte(`{"time":"2026-11-20T09:00:00Z","level":"error","logger":"o.h.engine.jdbc.spi.SqlExceptionHelper","app":"checkout","msg":"x"}`), tc, &r)
	if string(r.Service) != "checkout" {
		t.Errorf("service %q; want the app, checkout, not the logger", r.Service)
	}
}

// TestSpecLevelWords ties SPEC's list of level spellings to the reader:
// every word SPEC lists under a level maps to it.
func TestSpecLevelWords(t *testing.T) {
	spec := specText(t)
	part := specPart(t, spec, "Levels of any spelling map to", "; lines\nwhose layout gives no level")
	groups := regexp.MustCompile("`([A-Z]+)` \\(([^)]*)\\)").FindAllStringSubmatch(part, -1)
	if len(groups) != 4 {
		t.Fatalf("SPEC's level list has %d levels: %q", len(groups), part)
	}
	for _, g := range groups {
		for _, w := range strings.Split(g[2], ",") {
			w = strings.TrimSpace(w)
			switch {
			case strings.HasSuffix(w, "…"): // debug1…debug5, fine…
				lo, hi, ok := strings.Cut(w, "…")
				for _, x := range []string{lo, hi} {
					if ok && x != "" && NormLevel(x) != g[1] {
						t.Errorf("SPEC maps %q to %s; the reader gives %q", x, g[1], NormLevel(x))
					}
				}
			case strings.Contains(w, "…"):
				lo, hi, _ := strings.Cut(w, "…")
				for _, x := range []string{lo, hi} {
					if NormLevel(x) != g[1] {
						t.Errorf("SPEC maps %q to %s; the reader gives %q", x, g[1], NormLevel(x))
					}
				}
			default:
				if NormLevel(w) != g[1] {
					t.Errorf("SPEC maps %q to %s; the reader gives %q", w, g[1], NormLevel(w))
				}
				if NormLevel(strings.ToUpper(w)) != g[1] {
					t.Errorf("SPEC maps %q (any case) to %s; the reader gives %q", strings.ToUpper(w), g[1], NormLevel(strings.ToUpper(w)))
				}
			}
		}
	}
}

// TestSpecGeneralReader ties SPEC's paragraph on the general reader to the
// code: every stamp spelling it lists is read by the general layout as
// 2026-11-20 09:00 (the date all its examples spell), every zone it lists
// places the stamp whatever the source's timezone, and every level word
// and decoration it lists is read as a level.
func TestSpecGeneralReader(t *testing.T) {
	spec := specText(t)
	para := specPart(t, spec, "The general reader. A file no listed layout", "Access fields.")
	quoted := regexp.MustCompile("`([^`]+)`")
	general := LayoutByName(LayoutGeneral)
	want := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	read := func(line string, loc *time.Location) (time.Time, string, bool) {
		tc := TimeCtx{Loc: loc}
		tc.SetRef(want.Add(3 * time.Hour).UnixNano())
		var r Record
		if general.ParseLine([]byte(line), &tc, &r) != LineTimed {
			return time.Time{}, "", false
		}
		return time.Unix(0, r.TS).UTC(), r.Level, true
	}

	spellings := specPart(t, para, "in these spellings:", "Any clock")
	n := 0
	for _, m := range quoted.FindAllStringSubmatch(spellings, -1) {
		stamp := strings.ReplaceAll(m[1], "\n", " ") // SPEC's lines wrap inside a stamp
		if len(stamp) < 8 || !strings.ContainsAny(stamp, "0123456789") {
			continue // "-", "/", "T": the separators, not spellings
		}
		n++
		line := stamp + " [main] ERROR boom"
		got, lvl, ok := read(line, time.UTC)
		if !ok {
			t.Errorf("SPEC lists the spelling %q; the general reader finds no stamp in %q", stamp, line)
			continue
		}
		if got.Truncate(time.Second) != want {
			t.Errorf("SPEC's spelling %q read as %s, want %s", stamp, got.Format(time.RFC3339Nano), want.Format(time.RFC3339))
		}
		if stamp[0] == 'E' && lvl != "ERROR" { // a level letter joined to the date
			t.Errorf("SPEC's %q joins the level letter E to the date; the reader gives level %q", stamp, lvl)
		}
	}
	if n < 15 {
		t.Fatalf("SPEC's general reader lists %d stamp spellings; the paragraph changed shape: %q", n, spellings)
	}

	zones := specPart(t, para, "a zone written after it", "places the stamp")
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	nz := 0
	for _, m := range quoted.FindAllStringSubmatch(zones, -1) {
		nz++
		line := "2026-11-20 09:00:00" + m[1] + " ERROR boom"
		if got, _, ok := read(line, ny); !ok || !got.Equal(want) {
			t.Errorf("SPEC says the zone %q places the stamp; %q in a New York source reads %s (timed %v)", m[1], line, got.Format(time.RFC3339), ok)
		}
	}
	if nz < 4 {
		t.Fatalf("SPEC lists %d zones: %q", nz, zones)
	}

	words := specPart(t, para, "and also `SEVERE`", "in any decoration")
	for _, m := range quoted.FindAllStringSubmatch("`SEVERE`"+words, -1) {
		if tokenLevel([]byte(m[1]), false, false) == "" {
			t.Errorf("SPEC lists %q as a level word; the general reader reads none", m[1])
		}
	}
	decorations := specPart(t, para, "in any decoration:", "; before the columns")
	nd := 0
	for _, m := range quoted.FindAllStringSubmatch(decorations, -1) {
		nd++
		if tokenLevel([]byte(m[1]), true, false) == "" {
			t.Errorf("SPEC lists the decoration %q; the general reader reads no level from it before it has learned the file's columns", m[1])
		}
	}
	if nd < 8 {
		t.Fatalf("SPEC lists %d decorations: %q", nd, decorations)
	}
}
