package timeline

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/superbiz/superbiz/internal/textclip"
	"github.com/superbiz/superbiz/pkg/tools"
	"github.com/superbiz/superbiz/pkg/tools/logs"
	"github.com/superbiz/superbiz/pkg/tools/metrics"
)

// The detectors, as coverage names them.
const (
	DetectAlerts   = "alerts"
	DetectMetrics  = "metric_shift"
	DetectBursts   = "error_burst"
	DetectNewError = "new_error"
	DetectRestarts = "restart"
)

// Bounds of one timeline.
const (
	// MaxWindow is the longest window a timeline covers.
	MaxWindow = 24 * time.Hour
	// baseline is how far before the window the logs detectors look for
	// what was normal (error rates, the error patterns already known).
	baseline = time.Hour
	// maxCoarseBuckets bounds the first histogram of a burst search; a
	// burst it finds in a bucket longer than a minute is placed to the
	// minute by a second histogram over that bucket.
	maxCoarseBuckets = 300
	// maxMetricPoints is the most grid points of a metric inside the
	// window; baselinePoints more are read before it.
	maxMetricPoints = 180
	// maxBursts bounds the error bursts placed per source.
	maxBursts = 5
	// maxNewErrorChecks bounds the baseline checks of new patterns.
	maxNewErrorChecks = 3
	// maxNewErrorServices bounds the reads that find a new pattern's
	// service; the patterns after them keep "" (or --service).
	maxNewErrorServices = 3
	// maxRestartEntries is how many start-up lines one source lists.
	maxRestartEntries = 50
	// MaxMetrics bounds [[timeline.metrics]].
	MaxMetrics = 20
)

// Metric is one [[timeline.metrics]] entry: a PromQL query whose series
// are watched for shifts and spikes.
type Metric struct {
	Name    string `toml:"name" json:"name" required:"true"`
	Query   string `toml:"query" json:"query" required:"true"`
	Service string `toml:"service" json:"service"`
	// Source is the [[metrics]] source to ask; "" when only one is configured.
	Source string `toml:"source" json:"source"`
}

// Plan is what one timeline reads.
type Plan struct {
	Window Window
	// Service narrows the logs detectors to one service ("" for all).
	Service string
	// Logs are the [[logs]] sources to read.
	Logs []LogSource
	// Metrics are the series to watch.
	Metrics []Metric
	// Alerts says whether an Alertmanager is configured.
	Alerts bool
	// AlertExpr, for the timeline of an alert, is the series its rule's
	// expression compares, watched like Metrics; nil otherwise.
	AlertExpr *Metric
	// AlertSeries are the [[metrics]] sources whose alert state (the ALERTS
	// and ALERTS_FOR_STATE series Prometheus keeps) is read for the alerts
	// that started and resolved in the window.
	AlertSeries []string
	// Kubernetes are the [[kubernetes]] sources to read (kubernetes.go).
	Kubernetes []string
}

// logDetectors are the detectors a [[logs]] source is read by.
var logDetectors = [...]string{DetectBursts, DetectNewError, DetectRestarts}

// LogCalls is the most reads the logs detectors make of one source:
// bursts (the histogram, then a placing and a first minute for each),
// new errors (the window, the time before it, the checks and the service
// reads), restarts (each word, the narrower ones when "start" fills a read).
const LogCalls = 1 + 2*maxBursts + 2 + maxNewErrorChecks + maxNewErrorServices + len(restartWords) + len(narrowStarts)

// Lines is how many coverage lines a timeline of p holds once every
// detector finished (one per detector and source it reads), so a watcher
// of the detectors' progress knows how far they are.
func (p Plan) Lines() int {
	n := len(p.AlertSeries) + len(logDetectors)*len(p.Logs) + len(p.Metrics) + KubeCalls(len(p.Kubernetes))
	if p.Alerts {
		n++
	}
	if p.AlertExpr != nil {
		n++
	}
	return n
}

// LogSource is one [[logs]] source to read and the longest window one
// query may ask of it (its max_window).
type LogSource struct {
	Name      string
	MaxWindow time.Duration
}

// Observed is one tool call's observation as the harness returned it.
type Observed struct {
	ToolCallID     string               `json:"tool_call_id"`
	EvidenceStatus tools.EvidenceStatus `json:"evidence_status"`
	ErrorCode      string               `json:"error_code"`
	Control        string               `json:"control"`
	Result         json.RawMessage      `json:"result"`
	// Detail is the audit's reason of a refused or failed call (redacted),
	// for the coverage note; the model never sees it.
	Detail string `json:"-"`
}

// failure says why a call gave no result, "" when it gave one.
func (o Observed) failure() string {
	switch {
	case o.Control != "":
		return "the harness stopped the call (" + o.Control + ")"
	case o.EvidenceStatus == tools.StatusError && o.Detail != "":
		return "the call failed (" + o.ErrorCode + "): " + textclip.Bytes(o.Detail, 200)
	case o.EvidenceStatus == tools.StatusError:
		return "the call failed (" + o.ErrorCode + ")"
	case len(o.Result) == 0:
		return "the call returned no result"
	}
	return ""
}

// Caller makes one tool call through the harness (audited, bounded) and
// returns its observation; an error is a failure outside the call (the run
// ended), after which the timeline stops.
type Caller func(ctx context.Context, tool string, input any) (Observed, error)

// Progress is told each detector's coverage as it finishes, for a screen
// that fills in; nil ignores it.
type Progress func(Coverage, []Event)

// builder holds one timeline under construction.
type builder struct {
	plan     Plan
	call     Caller
	progress Progress
	tl       Timeline
}

// Build runs every detector of plan through call and returns the timeline,
// its events in time order. The error is the caller's (the run ended).
func Build(ctx context.Context, plan Plan, call Caller, progress Progress) (Timeline, error) {
	b := &builder{plan: plan, call: call, progress: progress,
		tl: Timeline{Window: plan.Window, Events: []Event{}, Coverage: []Coverage{}}}
	steps := []func(context.Context) error{b.alerts}
	for _, src := range plan.Logs {
		if long := plan.Window.End.Sub(plan.Window.Start); src.MaxWindow > 0 && long > src.MaxWindow {
			note := fmt.Sprintf("the window (%s) is longer than the source's max_window (%s): ask a shorter window", tools.FormatDuration(long), tools.FormatDuration(src.MaxWindow))
			for _, d := range logDetectors {
				b.done(Coverage{Detector: d, Source: src.Name, Status: Failed, Note: note})
			}
			continue
		}
		steps = append(steps, func(ctx context.Context) error { return b.errorBursts(ctx, src) },
			func(ctx context.Context) error { return b.newErrors(ctx, src) },
			func(ctx context.Context) error { return b.restarts(ctx, src) })
	}
	metrics := plan.Metrics
	if plan.AlertExpr != nil {
		metrics = append(slices.Clone(metrics), *plan.AlertExpr)
	}
	for _, m := range metrics {
		steps = append(steps, func(ctx context.Context) error { return b.metric(ctx, m) })
	}
	for _, k := range plan.Kubernetes {
		steps = append(steps, func(ctx context.Context) error { return b.kubernetes(ctx, k) })
	}
	for _, step := range steps {
		if err := step(ctx); err != nil {
			return b.tl, err
		}
	}
	sortEvents(b.tl.Events)
	return b.tl, nil
}

// done records one detector's coverage and events.
func (b *builder) done(c Coverage, es ...Event) {
	b.tl.Coverage = append(b.tl.Coverage, c)
	b.tl.Events = append(b.tl.Events, es...)
	if b.progress != nil {
		b.progress(c, es)
	}
}

// stamp is t as the tools take it.
func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// parseTS reads a tool's RFC 3339 time.
func parseTS(s string) (time.Time, bool) {
	t, err := time.Parse(time.RFC3339Nano, s)
	return t, err == nil
}

// decode reads o's result into v, the tool's own result type; a result
// that does not decode is a failure to report, never an empty answer.
func decode(o Observed, v any) string {
	if f := o.failure(); f != "" {
		return f
	}
	if err := json.Unmarshal(o.Result, v); err != nil {
		return "its result could not be read: " + err.Error()
	}
	return ""
}

// logsCoverage is the status and note of a query_logs answer.
func logsCoverage(r logs.Result) (Status, string) {
	var notes []string
	st := Read
	switch r.Coverage.Coverage {
	case tools.CoverageNone:
		st = Empty
		notes = append(notes, "the window held no entry")
	case tools.CoveragePartial:
		st = Partial
		notes = append(notes, "entries the filters could not judge")
	}
	if len(r.TruncatedBy) > 0 {
		st = Partial
		notes = append(notes, "stopped early by "+strings.Join(r.TruncatedBy, ", "))
	}
	if r.SkippedCount > 0 {
		st = Partial
		notes = append(notes, fmt.Sprintf("%d file(s) not read fully", r.SkippedCount))
	}
	return st, strings.Join(notes, "; ")
}

// baselineOf is how far before the window src is read for what was
// normal: an hour, less when the source's max_window leaves less.
func (b *builder) baselineOf(ls LogSource) time.Duration { return baselineFor(b.plan.Window, ls) }

func baselineFor(w Window, ls LogSource) time.Duration {
	d := baseline
	if ls.MaxWindow > 0 {
		d = min(d, ls.MaxWindow-w.End.Sub(w.Start))
	}
	return max(d, 0)
}

// LogSpan is the time a timeline of w reads of the log source ls, from
// its baseline before the window to the window's end: what eval pack
// freezes of it.
func LogSpan(w Window, ls LogSource) (lo, hi time.Time) {
	return w.Start.Add(-baselineFor(w, ls)), w.End
}

// MetricSpan is the time a timeline of w reads of each metric: its grid
// over the window and the baselinePoints steps before it.
func MetricSpan(w Window) (lo, hi time.Time) {
	return w.Start.Add(-baselinePoints * MetricStep(w)), w.End
}

// MetricStep is the grid step of the metrics a timeline of w reads.
func MetricStep(w Window) time.Duration { return metricStep(w.End.Sub(w.Start)) }

// readLogs makes a detector's query_logs call and reads its answer: the
// result and the coverage it gives; ok false when the call gave no result,
// its failed coverage line then recorded. The error is the caller's.
func (b *builder) readLogs(ctx context.Context, detector, src string, in map[string]any) (logs.Result, Coverage, bool, error) {
	o, err := b.call(ctx, logs.ToolName, in)
	if err != nil {
		return logs.Result{}, Coverage{}, false, err
	}
	cov := Coverage{Detector: detector, Source: src, ToolCallID: o.ToolCallID}
	var r logs.Result
	if f := decode(o, &r); f != "" {
		cov.Status, cov.Note = Failed, f
		b.done(cov)
		return r, cov, false, nil
	}
	cov.Status, cov.Note = logsCoverage(r)
	return r, cov, true, nil
}

// logsInput is a query_logs input over [start, end) of src.
func (b *builder) logsInput(src string, start, end time.Time) map[string]any {
	in := map[string]any{"source": src, "start": stamp(start), "end": stamp(end)}
	if b.plan.Service != "" {
		in["service"] = b.plan.Service
	}
	return in
}

// errorBursts finds each minute in which src's error rate rises well above
// its baseline: a histogram of ERROR entries over the baseline and the
// window, then for each burst (at most maxBursts) its placing.
func (b *builder) errorBursts(ctx context.Context, ls LogSource) error {
	src, before := ls.Name, b.baselineOf(ls)
	w := b.plan.Window
	from := w.Start.Add(-before)
	every := time.Minute
	for buckets(w.End.Sub(from), every) > maxCoarseBuckets {
		every += time.Minute
	}
	in := b.logsInput(src, from, w.End)
	in["level"], in["histogram"], in["limit"] = "ERROR", tools.FormatDuration(every), 1
	r, cov, ok, err := b.readLogs(ctx, DetectBursts, src, in)
	if err != nil || !ok {
		return err
	}
	if r.Histogram == nil {
		cov.Status, cov.Note = Failed, "the answer has no histogram"
		b.done(cov)
		return nil
	}
	h0, _ := parseTS(r.Histogram.Start)
	found := bursts(r.Histogram.Counts, buckets(w.Start.Sub(h0), every))
	if len(found) > maxBursts {
		found = found[:maxBursts]
		cov.Status = Partial
		cov.Note = strings.TrimPrefix(cov.Note+fmt.Sprintf("; the first %d bursts are placed", maxBursts), "; ")
	}
	var es []Event
	for _, bu := range found {
		ev, err := b.placeBurst(ctx, src, from, every, h0, bu, cov.ToolCallID)
		if err != nil {
			return err
		}
		es = append(es, ev)
	}
	b.done(cov, es...)
	return nil
}

// placeBurst makes one burst an event: placed to the minute (when the
// histogram's buckets are longer, by a histogram over the half hour before
// its bucket and the bucket itself), with its first minute's service and
// commonest message.
func (b *builder) placeBurst(ctx context.Context, src string, from time.Time, every time.Duration, h0 time.Time, bu burst, support string) (Event, error) {
	burstAt := h0.Add(time.Duration(bu.at) * every)
	perMin := every.Minutes()
	before, after := bu.before/perMin, bu.after/perMin
	if every > time.Minute {
		fs := burstAt.Add(-30 * time.Minute)
		if fs.Before(from) {
			fs = from
		}
		fin := b.logsInput(src, fs, burstAt.Add(every))
		fin["level"], fin["histogram"], fin["limit"] = "ERROR", "1m", 1
		fo, err := b.call(ctx, logs.ToolName, fin)
		if err != nil {
			return Event{}, err
		}
		var fr logs.Result
		if decode(fo, &fr) == "" && fr.Histogram != nil {
			f0, _ := parseTS(fr.Histogram.Start)
			if fb := bursts(fr.Histogram.Counts, buckets(burstAt.Sub(f0), time.Minute)); len(fb) > 0 {
				burstAt, before, after, support = f0.Add(time.Duration(fb[0].at)*time.Minute), fb[0].before, fb[0].after, fo.ToolCallID
			}
		}
	}
	ev := Event{At: burstAt, Kind: ErrorBurst, Source: src, Service: b.plan.Service, Before: number(before), After: number(after), ToolCallID: support}
	// who and what: the burst's first minute
	win := b.logsInput(src, burstAt, burstAt.Add(time.Minute))
	win["level"], win["limit"] = "ERROR", 20
	wo, err := b.call(ctx, logs.ToolName, win)
	if err != nil {
		return Event{}, err
	}
	var wr logs.Result
	what := ""
	if decode(wo, &wr) == "" {
		if ev.Service == "" {
			ev.Service = dominantService(wr.Entries)
		}
		if len(wr.Patterns) > 0 {
			what = ": " + textclip.Bytes(wr.Patterns[0].Template, 100)
		}
	}
	ev.Summary = fmt.Sprintf("errors rose from %s to %s a minute%s", fmtNum(before), fmtNum(after), what)
	return ev, nil
}

// dominantService is the service most entries name, "" when none does.
func dominantService(es []logs.Entry) string {
	n := map[string]int{}
	best := ""
	for _, e := range es {
		if e.Service == "" {
			continue
		}
		n[e.Service]++
		if n[e.Service] > n[best] || (n[e.Service] == n[best] && e.Service < best) {
			best = e.Service
		}
	}
	return best
}

// maxPatterns is how many patterns query_logs lists: a baseline answer
// listing that many may have left a known pattern out.
const maxPatterns = 10

// newErrors lists the ERROR patterns of the window that the hour before it
// never had. The baseline lists at most its 10 commonest patterns, so a
// pattern missing from a full list is checked by its words over the
// baseline before it is called new.
func (b *builder) newErrors(ctx context.Context, ls LogSource) error {
	src, before := ls.Name, b.baselineOf(ls)
	w := b.plan.Window
	in := b.logsInput(src, w.Start, w.End)
	in["level"], in["limit"] = "ERROR", 1
	r, cov, ok, err := b.readLogs(ctx, DetectNewError, src, in)
	if err != nil || !ok {
		return err
	}
	if len(r.Patterns) == 0 {
		b.done(cov)
		return nil
	}
	if before < 10*time.Minute {
		cov.Status, cov.Note = Partial, "the source's max_window leaves no time before the window to compare with; no pattern is called new"
		b.done(cov)
		return nil
	}
	bin := b.logsInput(src, w.Start.Add(-before), w.Start)
	bin["level"], bin["limit"] = "ERROR", 1
	bo, err := b.call(ctx, logs.ToolName, bin)
	if err != nil {
		return err
	}
	var br logs.Result
	if f := decode(bo, &br); f != "" {
		cov.Status, cov.Note = Partial, "the time before the window could not be read, so no pattern is called new: "+f
		b.done(cov)
		return nil
	}
	// levelBlind: the baseline's only gap is entries whose level the
	// layout could not read (continuation lines, banners): they may be
	// errors of any pattern, so a pattern is new only when its words are
	// in no entry of the baseline, whatever its level
	levelBlind := false
	if st, note := logsCoverage(br); st != Read {
		if !onlyLevelUnread(br) {
			// without a baseline every pattern would look new
			cov.Status, cov.Note = Partial, "the time before the window: "+note+"; no pattern is called new"
			b.done(cov)
			return nil
		}
		levelBlind = true
		cov.Status = Partial
		cov.Note = strings.TrimPrefix(cov.Note+fmt.Sprintf("; the time before the window held %d entries whose level could not be read: a pattern is called new only when its words are in no entry there", br.LevelUnread), "; ")
	}
	known := map[string]bool{}
	for _, p := range br.Patterns {
		known[p.Template] = true
	}
	var es []Event
	checks, lookups := 0, 0
	for _, p := range r.Patterns {
		if known[p.Template] {
			continue
		}
		support := cov.ToolCallID
		if levelBlind || len(br.Patterns) >= maxPatterns {
			words := distinctiveWords(p.Template)
			if len(words) == 0 || checks == maxNewErrorChecks {
				continue // cannot be checked: not called new
			}
			checks++
			cin := b.logsInput(src, w.Start.Add(-before), w.Start)
			cin["limit"], cin["contains"] = 1, strings.Join(words, " ")
			if !levelBlind {
				cin["level"] = "ERROR"
			}
			co, err := b.call(ctx, logs.ToolName, cin)
			if err != nil {
				return err
			}
			var cr logs.Result
			if decode(co, &cr) != "" || cr.Matched > 0 || cr.Coverage.Coverage != "data" {
				continue
			}
			support = co.ToolCallID
		}
		at, ok := parseTS(p.FirstTS)
		if !ok {
			continue
		}
		svc := b.plan.Service
		if svc == "" && lookups < maxNewErrorServices {
			lookups++
			if svc, err = b.serviceOf(ctx, src, p.Template, at); err != nil {
				return err
			}
		}
		es = append(es, Event{At: at, Kind: NewError, Source: src, Service: svc, ToolCallID: support,
			Summary: fmt.Sprintf("new error (%d in the window, none in the %s before): %s", p.Count, tools.FormatDuration(before), textclip.Bytes(p.Template, 100))})
	}
	b.done(cov, es...)
	return nil
}

// onlyLevelUnread says the answer r is partial only for entries whose
// level the layout could not read: every line was read and placed.
func onlyLevelUnread(r logs.Result) bool {
	return r.LevelUnread > 0 && r.ServiceUnread == 0 && r.Unplaced == 0 && r.TimeAmbiguous == 0 && r.ContainsCut == 0 &&
		r.PartlyRead == 0 && r.SkippedCount == 0 && len(r.TruncatedBy) == 0 && (r.Matched > 0 || r.Unparsed == 0)
}

// serviceOf is the service most ERROR entries of template's words name in
// the minute from at, "" when none does or the read gave nothing.
func (b *builder) serviceOf(ctx context.Context, src, template string, at time.Time) (string, error) {
	words := distinctiveWords(template)
	if len(words) == 0 {
		return "", nil
	}
	in := b.logsInput(src, at, at.Add(time.Minute))
	in["level"], in["limit"], in["contains"] = "ERROR", 20, strings.Join(words, " ")
	o, err := b.call(ctx, logs.ToolName, in)
	if err != nil {
		return "", err
	}
	var r logs.Result
	if decode(o, &r) != "" {
		return "", nil
	}
	return dominantService(r.Entries), nil
}

// wordRE finds the words of a template that are worth searching for:
// letters only, four or more, no masked part.
var wordRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[A-Za-z][A-Za-z_]{3,}`) })

// distinctiveWords are at most 8 distinct words of template, longest first.
func distinctiveWords(template string) []string {
	seen := map[string]bool{}
	var out []string
	for _, w := range wordRE().FindAllString(template, -1) {
		lw := strings.ToLower(w)
		if seen[lw] {
			continue
		}
		seen[lw] = true
		out = append(out, lw)
	}
	// longest words are the rarest in practice; keep the order stable
	sortByLenDesc(out)
	if len(out) > 8 {
		out = out[:8]
	}
	return out
}

func sortByLenDesc(ws []string) {
	for i := 1; i < len(ws); i++ {
		for j := i; j > 0 && len(ws[j]) > len(ws[j-1]); j-- {
			ws[j], ws[j-1] = ws[j-1], ws[j]
		}
	}
}

// startRE is a process start-up line: Spring Boot's "Starting X v2.14.0
// using Java 17.0.13 with PID 1 (…)" and "Started X in 4.2 seconds",
// "server started", "starting server", a name and its version starting
// ("Starting payment-service v2.14.0"), "listening on", databases' "ready
// to accept connections", nginx's "start worker process", init scripts'
// "cupsd startup succeeded", syslogd's "syslogd 1.4.1: restart.", a version
// banner that starts ("syslog-ng version 1.6.0 starting", "Mailpit v1.12.0
// starting", "rpc.statd: Version 1.0.6 Starting"), Spark's "Starting
// executor"; a job, task or campaign that "started" is not a process start.
var startRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(\bstarted [\w.$-]+ in [\d.]+ ?s|\bstarting [\w.$-]+ (v\d[\w.+-]* )?(using java \S+ )?(on \S+ )?with pid \d+|^starting [\w.$-]+ (v|version )\d+\.\d+|\b(server|service|application|app|worker|process|daemon|instance|node) (has )?(started|starting|starts successfully)\b|\bstarting (up|server|service|application|worker|executor|http server|grpc server)\b|\blistening on\b|\bready to accept connections\b|\bready for connections\b|\bstart worker process\b|\bstart-?up (succeeded|complete|completed|finished)\b|^\S+( [\d.]+)?: restart\.?$|\b(version v?|v)\d[\w.+-]* (starting|started)\b)`)
})

// bannerRE is a program's own start banner whose version is a field of
// the entry: Prometheus' and Alertmanager's msg="Starting Prometheus
// Server" version="(version=2.48.1, …)", Grafana's msg="Starting Grafana"
// version=12.4.0; a start-up line only with that field.
var bannerRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)^starting [\w.-]+( server)?$`)
})

// restartWords are the words whose entries the restart detector reads (a
// start-up line holds one): "start" first; when it matches more lines than
// one read lists (business lines naming a startStation or a start time),
// the narrower words after it are read too.
var (
	restartWords = [...]string{"start", "listening", "ready"}
	narrowStarts = [...]string{"started", "starting", "startup", "start-up", "restart", "start worker", "starts successfully"}
)

// versionRE finds a version banner's version.
var versionRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(?:version|ver|v)[ :=]*v?(\d+\.\d+(?:\.\d+)?(?:[-+.][0-9A-Za-z.]+)?)`)
})

// bareVersionRE is a version field that is the version alone ("2.14.0",
// "v2.14.0", "2.45.3+ds").
var bareVersionRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^v?(\d+\.\d+(?:\.\d+)?(?:[-+.][0-9A-Za-z.]+)?)$`)
})

// versionFields are the fields a structured log names its program's
// version in: slog's or zap's version, OpenTelemetry's service.version.
var versionFields = []string{"version", "service.version", "resource.service.version", "app.version", "app_version"}

// startVersion is the version a start-up line names: in its message
// ("v2.14.0", "version 1.6.0"), else in a version field; "" when none.
func startVersion(e logs.Entry) string {
	if m := versionRE().FindStringSubmatch(e.Message); m != nil {
		return m[1]
	}
	for _, k := range versionFields {
		v, ok := e.Fields[k]
		if !ok {
			continue
		}
		s := strings.TrimSpace(fmt.Sprint(v))
		if m := bareVersionRE().FindStringSubmatch(s); m != nil {
			return m[1]
		}
		if m := versionRE().FindStringSubmatch(s); m != nil {
			return m[1]
		}
	}
	return ""
}

// isStart says e is a process start-up line, and the version it names.
func isStart(e logs.Entry) (bool, string) {
	v := startVersion(e)
	return startRE().MatchString(e.Message) || (v != "" && bannerRE().MatchString(strings.TrimSpace(e.Message))), v
}

// startSpan is how long one start of a service lasts: its start-up lines
// within it of the first (a banner, then "Started … in 9.1 seconds", the
// workers, "listening on") are one start.
const startSpan = 2 * time.Minute

// start is one process start of a service in the window: its first
// start-up line and the first version its lines name.
type start struct {
	at      time.Time
	service string
	line    string
	version string
}

// restarts lists the process starts of the window: start-up lines, one
// event per service and start, a deploy when the version a service starts
// with differs from the one it started with before (in the window or the
// hour before it).
func (b *builder) restarts(ctx context.Context, ls LogSource) error {
	src, before := ls.Name, b.baselineOf(ls)
	w := b.plan.Window
	var cov Coverage
	var all []logs.Entry
	seenEntry := map[string]bool{}
	var notes []string
	// read lists the entries holding word; full says it listed fewer than
	// matched. A read after the first that gives no result (a recording
	// made before the detector read that word has none) is a note of the
	// one coverage line, its events those the other reads show.
	read := func(word string) (full bool, err error) {
		// the hour before the window gives the version a service ran before
		in := b.logsInput(src, w.Start.Add(-before), w.End)
		in["contains"], in["limit"] = word, maxRestartEntries
		o, err := b.call(ctx, logs.ToolName, in)
		if err != nil {
			return false, err
		}
		var r logs.Result
		if f := decode(o, &r); f != "" {
			if cov.ToolCallID == "" {
				cov = Coverage{Detector: DetectRestarts, Source: src, ToolCallID: o.ToolCallID, Status: Failed, Note: f}
			} else {
				notes = append(notes, fmt.Sprintf("the lines holding %q were not read: %s", word, f))
			}
			return false, nil
		}
		st, note := logsCoverage(r)
		if cov.ToolCallID == "" {
			cov = Coverage{Detector: DetectRestarts, Source: src, ToolCallID: o.ToolCallID, Status: st, Note: note}
		} else if st != Read && cov.Status == Read {
			cov.Status, cov.Note = st, note
		}
		for _, e := range r.Entries {
			if k := e.TS + "|" + e.Service + "|" + e.Message; !seenEntry[k] {
				seenEntry[k] = true
				all = append(all, e)
			}
		}
		full = r.Matched > len(r.Entries)
		if full {
			notes = append(notes, fmt.Sprintf("the newest %d of %d lines holding %q were read", len(r.Entries), r.Matched, word))
		}
		return full, nil
	}
	for _, word := range restartWords {
		full, err := read(word)
		if err != nil {
			return err
		}
		if cov.Status == Failed {
			b.done(cov) // the first read failed: nothing was read
			return nil
		}
		if word != "start" || !full {
			continue
		}
		notes = notes[:len(notes)-1]
		for _, nw := range narrowStarts {
			if _, err := read(nw); err != nil {
				return err
			}
		}
	}
	if len(notes) > 0 {
		cov.Status = Partial
		cov.Note = strings.TrimPrefix(cov.Note+"; "+strings.Join(notes, "; "), "; ")
	}
	b.done(cov, startEvents(all, w, src, cov.ToolCallID)...)
	return nil
}

// startEvents are the starts among entries (start-up lines and others) in
// w: a restart each, a deploy when its version differs from the one the
// service started with before.
func startEvents(entries []logs.Entry, w Window, src, support string) []Event {
	// walk the entries oldest first
	slices.SortStableFunc(entries, func(x, y logs.Entry) int { return strings.Compare(x.TS, y.TS) })
	lastVersion := map[string]string{}
	open := map[string]int{} // a service's latest start, in starts
	var starts []start
	for _, e := range entries {
		ok, v := isStart(e)
		if !ok {
			continue
		}
		at, ok := parseTS(e.TS)
		if !ok {
			continue
		}
		if at.Before(w.Start) {
			if v != "" {
				lastVersion[e.Service] = v
			}
			continue
		}
		if i, ok := open[e.Service]; ok && at.Sub(starts[i].at) < startSpan {
			if starts[i].version == "" {
				starts[i].version = v
			}
			continue
		}
		open[e.Service] = len(starts)
		starts = append(starts, start{at: at, service: e.Service, line: e.Message, version: v})
	}
	es := make([]Event, 0, len(starts))
	for _, s := range starts {
		ev := Event{At: s.at, Kind: Restart, Source: src, Service: s.service, ToolCallID: support, Summary: "started: " + textclip.Bytes(s.line, 100)}
		if prev, ok := lastVersion[s.service]; ok && s.version != "" && prev != s.version {
			ev.Kind, ev.Before, ev.After = Deploy, version(prev), version(s.version)
			ev.Summary = fmt.Sprintf("started version %s (was %s): %s", s.version, prev, textclip.Bytes(s.line, 80))
		}
		if s.version != "" {
			lastVersion[s.service] = s.version
		}
		es = append(es, ev)
	}
	return es
}

// metricStep is the grid step of a metric over the window: the smallest
// of the usual steps that keeps the window within maxMetricPoints.
func metricStep(window time.Duration) time.Duration {
	for _, s := range []time.Duration{15 * time.Second, 30 * time.Second, time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute, 15 * time.Minute, 30 * time.Minute} {
		if window/s <= maxMetricPoints {
			return s
		}
	}
	return time.Hour
}

// metric watches one series for shifts and spikes: its values on a grid
// over the window and baselinePoints steps before it.
func (b *builder) metric(ctx context.Context, m Metric) error {
	w := b.plan.Window
	step := metricStep(w.End.Sub(w.Start))
	from, _ := MetricSpan(w)
	in := map[string]any{"query": m.Query, "start": stamp(from), "end": stamp(w.End), "step": tools.FormatDuration(step), "values": true}
	if m.Source != "" {
		in["source"] = m.Source
	}
	o, err := b.call(ctx, metrics.ToolName, in)
	if err != nil {
		return err
	}
	cov := Coverage{Detector: DetectMetrics, Source: m.Name, ToolCallID: o.ToolCallID}
	var r metrics.Result
	if f := decode(o, &r); f != "" {
		cov.Status, cov.Note = Failed, f
		b.done(cov)
		return nil
	}
	cov.Status = Read
	switch {
	case r.Coverage == tools.CoverageNone:
		cov.Status, cov.Note = Empty, "no sample in the window"
	case len(r.Series) == 0:
		cov.Note = "the query returned no series"
	case r.Truncated:
		cov.Status, cov.Note = Partial, fmt.Sprintf("%d of %d series read", len(r.Series), r.TotalSeries)
	}
	start, ok := parseTS(r.Start)
	if !ok {
		start = from
	}
	first := int(w.Start.Sub(start) / step)
	var es []Event
	for _, s := range r.Series {
		svc := m.Service
		if svc == "" {
			svc = s.Labels["service"]
		}
		if svc == "" {
			svc = s.Labels["job"]
		}
		for _, c := range changes(s.Values, first) {
			what := "spiked to " + fmtNum(c.after)
			if c.shift {
				dir := "rose"
				if c.after < c.before {
					dir = "fell"
				}
				what = fmt.Sprintf("%s from %s to %s", dir, fmtNum(c.before), fmtNum(c.after))
			}
			es = append(es, Event{At: start.Add(time.Duration(c.at) * step), Kind: MetricShift, Source: r.Source, Service: svc,
				Summary: fmt.Sprintf("%s %s (%s)", m.Name, what, seriesName(s.Labels)), Before: number(c.before), After: number(c.after), ToolCallID: o.ToolCallID})
		}
	}
	b.done(cov, es...)
	return nil
}

// seriesName names a series by the labels that tell series apart.
func seriesName(labels map[string]string) string {
	var parts []string
	for _, k := range []string{"instance", "pod", "route", "path", "method", "status"} {
		if v := labels[k]; v != "" {
			parts = append(parts, k+"="+v)
		}
	}
	if len(parts) == 0 {
		return "one series"
	}
	return strings.Join(parts, " ")
}

// buckets is how many buckets of every cover d.
func buckets(d, every time.Duration) int {
	if d <= 0 {
		return 0
	}
	return int((d + every - 1) / every)
}

// round keeps 4 significant digits, so JSON does not carry float noise.
func round(v float64) float64 {
	out, err := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 4, 64), 64)
	if err != nil {
		return v
	}
	return out
}

// fmtNum says a number short: 0.2, 41, 1.3e+06.
func fmtNum(v float64) string { return fmt.Sprintf("%.3g", v) }
