package logparse

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/superbiz/superbiz/internal/termsafe"
)

// fuzzParser fuzzes the built-in layout called name from seeds.
func fuzzParser(f *testing.F, name string, seeds ...string) {
	fuzzLayout(f, LayoutByName(name), seeds...)
}

// fuzzLayout fuzzes layout l (built in or custom) from seeds: whatever a
// line yields cleans to valid, control-free text.
func fuzzLayout(f *testing.F, l *Layout, seeds ...string) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		tc := TimeCtx{Loc: time.UTC, Year: 2026}
		var r Record
		if l.ParseLine(line, &tc, &r) != LineCont {
			// everything a parsed line yields must clean to valid, control-free text
			for _, b := range [][]byte{r.Msg, r.Service} {
				s := termsafe.Line(string(b))
				if !utf8.ValidString(s) {
					t.Fatalf("invalid UTF-8 from %q", line)
				}
				for _, c := range []byte(s) {
					if c < 0x20 || c == 0x7f {
						t.Fatalf("control byte %#x left in %q", c, s)
					}
				}
			}
			_ = Template(termsafe.Strip(string(r.Msg)))
		}
	})
}

func FuzzParseJSON(f *testing.F) {
	fuzzParser(f, LayoutJSON, `{"__REALTIME_TIMESTAMP":"1773496860000000","PRIORITY":"3","SYSLOG_IDENTIFIER":"sshd","MESSAGE":"x"}`,
		`{"timeUnixNano":"1773496860000000000","severityNumber":17,"body":{"stringValue":"b"},"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"s"}}]}}`,
		`{"instant":{"epochSecond":1773496860,"nanoOfSecond":5},"level":"ERROR","loggerName":"a.B","message":"m"}`,
		`{"EdgeStartTimestamp":1773496860000000000,"EdgeResponseStatus":502,"ClientRequestHost":"h"}`)
}

func FuzzParseLogfmt(f *testing.F) { fuzzParser(f, LayoutLogfmt) }

// FuzzOTLPBatch: whatever a collector batch line holds, every record it
// yields cleans to valid, control-free text and the walk stays within its
// bounds (at most MaxBatchRecords yielded, the rest only counted).
func FuzzOTLPBatch(f *testing.F) {
	data, err := os.ReadFile(filepath.Join(formatsDir, "otlp_collector.json"))
	if err != nil {
		f.Fatal(err)
	}
	for _, line := range bytes.Split(data, []byte("\n")) {
		f.Add(line)
	}
	f.Add([]byte(`{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"body":{"kvlistValue":{"values":[{"key":"k","value":{"arrayValue":{"values":[{"stringValue":"\u0007"}]}}}]}}}]}]}]}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		tc := TimeCtx{Loc: time.UTC, Year: 2026}
		var r Record
		n := 0
		cut := eachOTLPBatch(line, &tc, &r, func(_ LineKind, r *Record, raw, _ []byte) {
			n++
			if len(raw) > len(line) {
				t.Fatalf("record larger than its line")
			}
			for _, b := range [][]byte{r.Msg, r.Service} {
				s := termsafe.Line(string(b))
				if !utf8.ValidString(s) {
					t.Fatalf("invalid UTF-8 from %q", line)
				}
				for _, c := range []byte(s) {
					if c < 0x20 || c == 0x7f {
						t.Fatalf("control byte %#x left in %q", c, s)
					}
				}
			}
			if len(r.Msg) > max(maxAnyBytes, len(line)) {
				t.Fatalf("message of %d bytes from a line of %d", len(r.Msg), len(line))
			}
		})
		if n > MaxBatchRecords || cut < 0 || (cut > 0 && n != MaxBatchRecords) {
			t.Fatalf("yielded %d, cut %d", n, cut)
		}
		LayoutByName(LayoutOTLPBatch).ParseLine(line, &tc, &r)
	})
}

func FuzzParseText(f *testing.F) {
	fuzzParser(f, LayoutText, "2015-07-29 17:41:44,747 - ERROR [main] - m", "2009-07-20 22:59:27,672:ERROR:name:msg",
		"2024/01/02 03:04:05 [error] 12#0: *1 x")
}

func FuzzParseSyslog(f *testing.F) {
	fuzzParser(f, LayoutSyslog, "Jun 14 15:16:01 combo sshd(pam_unix)[19939]: check pass; user unknown",
		`<165>1 2003-10-11T22:14:15.003Z host app 1 ID47 [ex@32473 a=""]"] `+"ï»¿msg", "<13>Jun 14 15:16:01 h p: m")
}

func FuzzParseRAS(f *testing.F) {
	fuzzParser(f, LayoutRAS, "- 1117838570 2005.06.03 R02-M1-N0-C:J12-U11 2005-06-03-15.42.50.675872 R02-M1-N0-C:J12-U11 RAS KERNEL INFO m",
		"- 1131566461 2005.11.09 dn228 Nov 9 12:01:01 dn228/dn228 crond[2915]: m")
}

func FuzzParseHPC(f *testing.F) {
	fuzzParser(f, LayoutHPC, "134681 node-246 unix.hw state_change.unavailable 1077804742 1 Component State Change")
}

func FuzzParseGlog(f *testing.F) {
	fuzzParser(f, LayoutGlog, "E0102 15:04:05.000000 1234 file.go:12] msg")
}

func FuzzParseLogcat(f *testing.F) {
	fuzzParser(f, LayoutLogcat, "03-17 16:13:38.811  1702  2395 D WindowManager: printFreezingDisplayLogs")
}

func FuzzParseAccess(f *testing.F) {
	fuzzParser(f, LayoutAccess, `127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /a.gif HTTP/1.0" 200 2326 "-" "ua"`)
}

func FuzzParseApacheError(f *testing.F) {
	fuzzParser(f, LayoutApacheErr, "[Sun Dec 04 04:47:44 2005] [error] mod_jk child workerEnv in error state 6",
		"[Fri Sep 09 10:42:29.902022 2011] [core:error] [pid 35708:tid 4328636416] [client 72.15.99.187] File does not exist")
}

func FuzzParseCBS(f *testing.F) {
	fuzzParser(f, LayoutCBS, "2016-09-28 04:30:30, Info                  CBS    Loaded Servicing Stack")
}

func FuzzParseFileDated(f *testing.F) {
	fuzzParser(f, LayoutFileDated, "nova-api.log.1.2017-05-16_13:53:08 2017-05-16 00:00:00.008 25746 INFO nova.osapi_compute.wsgi.server [req-1] x")
}

func FuzzParseHDFS(f *testing.F) {
	fuzzParser(f, LayoutHDFS, "081109 203615 148 INFO dfs.DataNode$PacketResponder: PacketResponder 1 terminating")
}

func FuzzParseSpark(f *testing.F) {
	fuzzParser(f, LayoutSpark, "17/06/09 20:10:40 INFO executor.CoarseGrainedExecutorBackend: Registered signal handlers")
}

func FuzzParseCompact(f *testing.F) {
	fuzzParser(f, LayoutCompact, "20171223-22:15:29:606|Step_LSC|30002312|onStandStepChanged 3579",
		"20171224-0:0:0:215|Step_LSC|30002312|x", "20171223-22:15:2:6|Step_SPUtils|1|ERROR y")
}

func FuzzParseMonthDay(f *testing.F) {
	fuzzParser(f, LayoutMonthDay, "[10.30 16:49:06] chrome.exe - proxy.cse.cuhk.edu.hk:5070 open through proxy")
}

// FuzzStampLike: the strict continuation rule's test reads any line without
// panicking, and a line it calls stamp-like starts with a digit (after '[').
func FuzzStampLike(f *testing.F) {
	for _, s := range []string{"20171224-0:0:0:215|x", "[10.30 16:49:06] a", "10.0.0.1:80 b", "2025-12-10 06:55:46", "\tat x"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if StampLike(line) {
			b := bytes.TrimPrefix(line, []byte("["))
			if len(b) == 0 || b[0] < '0' || b[0] > '9' {
				t.Fatalf("%q called stamp-like", line)
			}
		}
	})
}

func FuzzParseDocker(f *testing.F) {
	fuzzParser(f, LayoutDocker, `{"log":"{\"level\":\"error\",\"msg\":\"x\"}\n","stream":"stderr","time":"2023-01-29T09:41:49.552795573Z"}`,
		`{"log":"2023-01-29 09:41:49.552 ERROR 1 --- [main] a.B : y\n","stream":"stdout","time":"2023-01-29T09:41:49Z","attrs":{"k":"v"}}`)
}

func FuzzParseCRI(f *testing.F) {
	fuzzParser(f, LayoutCRI, "2023-01-29T09:41:49.552795573Z stdout F level=error msg=boom",
		"2023-01-29T09:41:49.552795573Z stderr P {\"level\":\"warn\"", "2023-01-29T09:41:49Z stdout F")
}

// FuzzCRIJoin: joining any entry never panics and yields an F line.
func FuzzCRIJoin(f *testing.F) {
	f.Add([]byte("2023-01-29T09:41:49.552795573Z stdout P a\n2023-01-29T09:41:49.552795573Z stdout F b\n"))
	f.Fuzz(func(t *testing.T, entry []byte) {
		if j := criJoin(entry); j != nil {
			tc := TimeCtx{Loc: time.UTC}
			if _, _, _, partial, ok := criParts(j, &tc); !ok || partial {
				t.Fatalf("joined %q is no F line", j)
			}
		}
	})
}

// FuzzDockerJoin: joining any entry never panics, and what it joins is a
// docker json-file line of the first piece's stream and time.
func FuzzDockerJoin(f *testing.F) {
	f.Add([]byte(`{"log":"a \"b","stream":"stdout","time":"2026-11-20T14:01:40.000000001Z"}` + "\n" + `{"log":"c\n","stream":"stdout","time":"2026-11-20T14:01:40.000000002Z"}` + "\n"))
	f.Fuzz(func(t *testing.T, entry []byte) {
		j := dockerJoin(entry)
		if j == nil {
			return
		}
		first, _, _ := bytes.Cut(entry, []byte("\n"))
		d, _ := readDocker(bytes.TrimSuffix(first, []byte("\r")))
		got, ok := readDocker(j)
		// JSON carries text: an invalid UTF-8 byte comes back as U+FFFD
		valid := func(b []byte) []byte { return []byte(string([]rune(string(b)))) }
		if !ok || !bytes.Equal(got.stamp, valid(d.stamp)) || !bytes.Equal(got.stream, valid(d.stream)) {
			t.Fatalf("joined %q from %q", j, entry)
		}
	})
}

// fuzzFixture fuzzes the layout called name from every line of the shared
// fixture file, the real-format sample it was written from.
func fuzzFixture(f *testing.F, name, file string) {
	data, err := os.ReadFile(filepath.Join(formatsDir, file))
	if err != nil {
		f.Fatal(err)
	}
	var seeds []string
	for _, line := range bytes.Split(data, []byte("\n")) {
		seeds = append(seeds, string(line))
	}
	fuzzParser(f, name, seeds...)
}

func FuzzParsePostgres(f *testing.F)      { fuzzFixture(f, LayoutPostgres, "postgres.log") }
func FuzzParseMySQL(f *testing.F)         { fuzzFixture(f, LayoutMySQL, "mysql.log") }
func FuzzParseLambda(f *testing.F)        { fuzzFixture(f, LayoutLambda, "lambda.log") }
func FuzzParseEnvoy(f *testing.F)         { fuzzFixture(f, LayoutEnvoy, "envoy.log") }
func FuzzParseGunicorn(f *testing.F)      { fuzzFixture(f, LayoutGunicorn, "gunicorn.log") }
func FuzzParseRubyLogger(f *testing.F)    { fuzzFixture(f, LayoutRuby, "ruby_logger.log") }
func FuzzParseRedis(f *testing.F)         { fuzzFixture(f, LayoutRedis, "redis.log") }
func FuzzParseElasticsearch(f *testing.F) { fuzzFixture(f, LayoutElastic, "elasticsearch.log") }

// FuzzRoute: a route is never longer than its bound and holds no query string.
func FuzzRoute(f *testing.F) {
	for _, s := range []string{"/api/orders/8812?expand=items", "http://h/a/4f1c2e9a-7b3d-4c5e-8f6a-9b0c1d2e3f4a", "/", "", "//x//"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, p []byte) {
		r := Route(p)
		if len(r) > maxRoute || bytes.ContainsAny(r, "?#") {
			t.Fatalf("Route(%q) = %q", p, r)
		}
	})
}
