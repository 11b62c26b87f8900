package logs

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/superbiz/superbiz/internal/config"
)

// fuzzParser fuzzes the built-in layout called name from seeds.
func fuzzParser(f *testing.F, name string, seeds ...string) {
	fuzzLayout(f, layoutByName(name), seeds...)
}

// fuzzLayout fuzzes layout l (built in or custom) from seeds: whatever a
// line yields cleans to valid, control-free text.
func fuzzLayout(f *testing.F, l *layout, seeds ...string) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		tc := timeCtx{loc: time.UTC, year: 2026}
		var r record
		if l.parseLine(line, &tc, &r) != lineCont {
			// everything a parsed line yields must clean to valid, control-free text
			for _, b := range [][]byte{r.msg, r.service} {
				s := cleanText(b, false)
				if !utf8.ValidString(s) {
					t.Fatalf("invalid UTF-8 from %q", line)
				}
				for _, c := range []byte(s) {
					if c < 0x20 || c == 0x7f {
						t.Fatalf("control byte %#x left in %q", c, s)
					}
				}
			}
			_ = template(cleanText(r.msg, true))
		}
	})
}

func FuzzParseJSON(f *testing.F) {
	fuzzParser(f, layoutJSON, `{"__REALTIME_TIMESTAMP":"1773496860000000","PRIORITY":"3","SYSLOG_IDENTIFIER":"sshd","MESSAGE":"x"}`,
		`{"timeUnixNano":"1773496860000000000","severityNumber":17,"body":{"stringValue":"b"},"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"s"}}]}}`,
		`{"instant":{"epochSecond":1773496860,"nanoOfSecond":5},"level":"ERROR","loggerName":"a.B","message":"m"}`,
		`{"EdgeStartTimestamp":1773496860000000000,"EdgeResponseStatus":502,"ClientRequestHost":"h"}`)
}
func FuzzParseLogfmt(f *testing.F) { fuzzParser(f, layoutLogfmt) }

// FuzzOTLPBatch: whatever a collector batch line holds, every record it
// yields cleans to valid, control-free text and the walk stays within its
// bounds (at most maxBatchRecords yielded, the rest only counted).
func FuzzOTLPBatch(f *testing.F) {
	data, err := os.ReadFile(filepath.Join("testdata", "formats", "otlp_collector.json"))
	if err != nil {
		f.Fatal(err)
	}
	for _, line := range bytes.Split(data, []byte("\n")) {
		f.Add(line)
	}
	f.Add([]byte(`{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"body":{"kvlistValue":{"values":[{"key":"k","value":{"arrayValue":{"values":[{"stringValue":"\u0007"}]}}}]}}}]}]}]}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		tc := timeCtx{loc: time.UTC, year: 2026}
		var r record
		n := 0
		cut := eachOTLPBatch(line, &tc, &r, func(_ lineKind, r *record, raw, _ []byte) {
			n++
			if len(raw) > len(line) {
				t.Fatalf("record larger than its line")
			}
			for _, b := range [][]byte{r.msg, r.service} {
				s := cleanText(b, false)
				if !utf8.ValidString(s) {
					t.Fatalf("invalid UTF-8 from %q", line)
				}
				for _, c := range []byte(s) {
					if c < 0x20 || c == 0x7f {
						t.Fatalf("control byte %#x left in %q", c, s)
					}
				}
			}
			if len(r.msg) > max(maxAnyBytes, len(line)) {
				t.Fatalf("message of %d bytes from a line of %d", len(r.msg), len(line))
			}
		})
		if n > maxBatchRecords || cut < 0 || (cut > 0 && n != maxBatchRecords) {
			t.Fatalf("yielded %d, cut %d", n, cut)
		}
		layoutByName(layoutOTLPBatch).parseLine(line, &tc, &r)
	})
}
func FuzzParseText(f *testing.F) {
	fuzzParser(f, layoutText, "2015-07-29 17:41:44,747 - ERROR [main] - m", "2009-07-20 22:59:27,672:ERROR:name:msg",
		"2024/01/02 03:04:05 [error] 12#0: *1 x")
}
func FuzzParseSyslog(f *testing.F) {
	fuzzParser(f, layoutSyslog, "Jun 14 15:16:01 combo sshd(pam_unix)[19939]: check pass; user unknown",
		`<165>1 2003-10-11T22:14:15.003Z host app 1 ID47 [ex@32473 a=""]"] `+"ï»¿msg", "<13>Jun 14 15:16:01 h p: m")
}
func FuzzParseRAS(f *testing.F) {
	fuzzParser(f, layoutRAS, "- 1117838570 2005.06.03 R02-M1-N0-C:J12-U11 2005-06-03-15.42.50.675872 R02-M1-N0-C:J12-U11 RAS KERNEL INFO m",
		"- 1131566461 2005.11.09 dn228 Nov 9 12:01:01 dn228/dn228 crond[2915]: m")
}
func FuzzParseHPC(f *testing.F) {
	fuzzParser(f, layoutHPC, "134681 node-246 unix.hw state_change.unavailable 1077804742 1 Component State Change")
}
func FuzzParseGlog(f *testing.F) {
	fuzzParser(f, layoutGlog, "E0102 15:04:05.000000 1234 file.go:12] msg")
}
func FuzzParseLogcat(f *testing.F) {
	fuzzParser(f, layoutLogcat, "03-17 16:13:38.811  1702  2395 D WindowManager: printFreezingDisplayLogs")
}
func FuzzParseAccess(f *testing.F) {
	fuzzParser(f, layoutAccess, `127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /a.gif HTTP/1.0" 200 2326 "-" "ua"`)
}
func FuzzParseApacheError(f *testing.F) {
	fuzzParser(f, layoutApacheErr, "[Sun Dec 04 04:47:44 2005] [error] mod_jk child workerEnv in error state 6",
		"[Fri Sep 09 10:42:29.902022 2011] [core:error] [pid 35708:tid 4328636416] [client 72.15.99.187] File does not exist")
}
func FuzzParseCBS(f *testing.F) {
	fuzzParser(f, layoutCBS, "2016-09-28 04:30:30, Info                  CBS    Loaded Servicing Stack")
}
func FuzzParseFileDated(f *testing.F) {
	fuzzParser(f, layoutFileDated, "nova-api.log.1.2017-05-16_13:53:08 2017-05-16 00:00:00.008 25746 INFO nova.osapi_compute.wsgi.server [req-1] x")
}
func FuzzParseHDFS(f *testing.F) {
	fuzzParser(f, layoutHDFS, "081109 203615 148 INFO dfs.DataNode$PacketResponder: PacketResponder 1 terminating")
}
func FuzzParseSpark(f *testing.F) {
	fuzzParser(f, layoutSpark, "17/06/09 20:10:40 INFO executor.CoarseGrainedExecutorBackend: Registered signal handlers")
}
func FuzzParseCompact(f *testing.F) {
	fuzzParser(f, layoutCompact, "20171223-22:15:29:606|Step_LSC|30002312|onStandStepChanged 3579")
}
func FuzzParseMonthDay(f *testing.F) {
	fuzzParser(f, layoutMonthDay, "[10.30 16:49:06] chrome.exe - proxy.cse.cuhk.edu.hk:5070 open through proxy")
}

func FuzzInput(f *testing.F) {
	tool, err := New([]config.LogSource{{Name: "app", Paths: []string{"/nonexistent"}, MaxWindow: 6 * time.Hour}})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		c, err := tool.Canonical(json.RawMessage(in))
		if err != nil {
			return
		}
		again, err := tool.Canonical(c.Input)
		if err != nil || string(again.Input) != string(c.Input) {
			t.Fatalf("canonical of %q not stable: %s then %s (%v)", in, c.Input, again.Input, err)
		}
	})
}

// FuzzMaskSecrets: the key-name masker never panics, is stable on its own
// output, and a value under a secret JSON key never survives whatever text
// comes before it.
func FuzzMaskSecrets(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `password=x token="y`, `\"secret\":\"z\"`, `'pwd'='q' "token":{"a":[1,"]"]}`, `k=[REDACTED]`, `"x":"\`} {
		f.Add(s, "hunter2value")
	}
	f.Fuzz(func(t *testing.T, prefix, v string) {
		m := newSecretMasker()
		once := m.text(prefix)
		if again := m.text(once); again != once {
			t.Fatalf("not stable on %q: %q then %q", prefix, once, again)
		}
		if len(v) < 6 || strings.Contains(prefix, v) || strings.Trim(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") != "" {
			return
		}
		if out := m.text(prefix + `{"password":"` + v + `"}`); strings.Contains(out, v) {
			t.Fatalf("value %q survived after %q: %q", v, prefix, out)
		}
	})
}

// FuzzScanFile: any file content (plain or gzip, damaged or not) is searched
// or skipped with a reason, never a panic or an unexplained failure, and a
// plain file gives the same answer streamed as mapped.
func FuzzScanFile(f *testing.F) {
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	if _, err := w.Write([]byte("{\"ts\":\"2026-03-14T14:01:00Z\",\"msg\":\"a\"}\n{\"msg\":\"untimed\"}\n")); err != nil {
		f.Fatal(err)
	}
	if err := w.Close(); err != nil {
		f.Fatal(err)
	}
	f.Add(gz.Bytes())
	f.Add(gz.Bytes()[:gz.Len()/2])
	f.Add([]byte("2026-03-14 14:01:00 ERROR [x] boom\n\tat a.b\nts=2026-03-14T14:02:00Z password=p msg=m\n"))
	f.Add([]byte("\x00\x00\x00\x01\x02binary\x00"))
	f.Add([]byte("\xef\xbb\xbfMar 14 14:01:00 h sshd[1]: error: x\r\nMar 14 14:02:00 h su: y\r\n"))
	f.Add([]byte("\xff\xfe2\x000\x002\x006\x00-\x000\x003\x00-\x001\x004\x00 \x001\x004\x00:\x000\x001\x00:\x000\x000\x00 \x00E\x00\n\x00"))
	f.Add([]byte("banner\n<34>1 2026-03-14T14:01:00Z h app - - - m\n127.0.0.1 - - [14/Mar/2026:14:01:00 +0000] \"GET / HTTP/1.1\" 500 1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		q := &query{startNS: base.Add(-48 * time.Hour).UnixNano(), endNS: base.Add(48 * time.Hour).UnixNano(), limit: 5}
		newScanner := func() *scanner {
			return &scanner{q: q, tc: timeCtx{loc: time.UTC, year: 2026, endNS: q.endNS}, acc: newAccumulator(5, time.UTC),
				noSeek: true, ctx: context.Background(), budget: 1 << 20}
		}
		p := filepath.Join(t.TempDir(), "f.log")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		s := newScanner()
		_, err := s.scanFile(p, builtinLayouts())
		var fe *fileError
		if err != nil && !errors.As(err, &fe) && !errors.Is(err, errDecompressedCap) {
			t.Fatalf("unexplained failure: %v", err)
		}
		res := s.acc.result("app", q.startNS, q.endNS)
		if _, err := json.Marshal(res); err != nil {
			t.Fatal(err)
		}
		if len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b {
			return
		}
		st := newScanner()
		_, errS := st.scanStream(bytes.NewReader(data), builtinLayouts())
		if (err == nil) != (errS == nil) {
			t.Fatalf("mapped err %v, streamed err %v", err, errS)
		}
		rs := st.acc.result("app", q.startNS, q.endNS)
		if rs.Matched != res.Matched || rs.Unparsed != res.Unparsed {
			t.Fatalf("mapped %d/%d, streamed %d/%d", res.Matched, res.Unparsed, rs.Matched, rs.Unparsed)
		}
	})
}
