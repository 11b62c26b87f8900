package knowledge

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// encodingsDir holds one runbook in several encodings, made with iconv from
// utf8.md (gb18030-4byte.md has a four-byte GB18030 character and a euro sign).
var encodingsDir = filepath.Join("testdata", "encodings")

func TestDecodeFixtures(t *testing.T) {
	want, err := os.ReadFile(filepath.Join(encodingsDir, "utf8.md"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		file    string
		enc     string
		text    string // "" means the text of utf8.md
		wantErr error
	}{
		{file: "utf8.md", enc: EncodingUTF8},
		{file: "utf8-bom.md", enc: EncodingUTF8},
		{file: "utf16le.md", enc: EncodingUTF16LE},
		{file: "utf16be.md", enc: EncodingUTF16BE},
		{file: "gbk.md", enc: EncodingGB18030},
		{file: "gb18030-4byte.md", enc: EncodingGB18030, text: "# Redis 超时 €\n\n## 排查\n\n慢查询 SLOWLOG GET 128；𠮷字\n"},
		{file: "utf16le-nobom.md", wantErr: errBinary},
		{file: "utf16le-unpaired.md", wantErr: errUTF16},
		{file: "latin1.md", wantErr: errUnknown},
		{file: "broken-utf8.md", wantErr: errUnknown},
		{file: "big5.md", wantErr: errUnknown}, // traditional Chinese in Big5: not read as GBK
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(encodingsDir, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			text, enc, err := Decode(data)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("Decode = %q, %q, %v; want error %v", text, enc, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			wantText := tt.text
			if wantText == "" {
				wantText = string(want)
			}
			if enc != tt.enc || text != wantText {
				t.Fatalf("Decode = %q (%s), want %q (%s)", text, enc, wantText, tt.enc)
			}
		})
	}
}

func TestDecodeEdges(t *testing.T) {
	tests := []struct {
		name string
		data string
		ok   bool
	}{
		{"empty", "", true},
		{"stray NUL in text is kept for the cleaner", "# A\n" + strings.Repeat("text ", 10) + "\x00\n", true},
		{"mostly NUL", "\x00\x00a\x00", false},
		{"odd UTF-16", "\xff\xfe#\x00 ", false},
		// Valid GB18030 pairs that decode to Latin and Greek letters: not Chinese text.
		{"GB18030 but not Chinese", "\x81\x30\x81\x30\x81\x30\x82\x30 x", false},
		{"ASCII", "# Redis\nplain\n", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := Decode([]byte(tt.data))
			if (err == nil) != tt.ok {
				t.Fatalf("Decode(%q) error %v, want ok=%v", tt.data, err, tt.ok)
			}
		})
	}
}

// TestSyncEncodings indexes the fixtures: decodable files are searchable in
// Chinese with their real headings, the rest are listed with the reason,
// never indexed as mojibake, and stay listed on the next sync without being
// read again.
func TestSyncEncodings(t *testing.T) {
	dir := copyDir(t, encodingsDir)
	writeFile(t, dir, "notes.txt", "plain text, not a runbook\n")
	ix := NewIndex(openDB(t), []string{dir})
	st := mustSync(t, ix)
	reasons := map[string]string{}
	for _, e := range st.Excluded {
		reasons[filepath.Base(e.Path)] = e.Reason
	}
	for _, f := range []string{"latin1.md", "broken-utf8.md", "utf16le-nobom.md", "utf16le-unpaired.md", "big5.md"} {
		if !strings.HasPrefix(reasons[f], ReasonEncoding+": ") {
			t.Errorf("%s: reason %q, want %q", f, reasons[f], ReasonEncoding)
		}
	}
	if reasons["notes.txt"] != ReasonNotMarkdown {
		t.Errorf("notes.txt: reason %q", reasons["notes.txt"])
	}
	if st.Files != 6 || st.Indexed != 6 || st.ExcludedTotal != 6 {
		t.Fatalf("stats %+v, want 6 files indexed and 6 exclusions", st)
	}
	// The same runbook in five encodings: one text, stored five times, and
	// served once (a search drops sections repeating a better one's text).
	want := "订单服务调用支付网关回调接口超时，网关返回 504，日志中出现“read timed out”。"
	for _, f := range []string{"utf8.md", "utf8-bom.md", "utf16le.md", "utf16be.md", "gbk.md"} {
		var title, body string
		err := ix.db.QueryRowContext(context.Background(), `SELECT title, body FROM kb_sections WHERE doc_id = ?`, "runbooks/"+f+"#现象").Scan(&title, &body)
		if err != nil || title != "支付回调超时 › 现象" || body != want {
			t.Errorf("%s: section %q %q (%v)", f, title, body, err)
		}
	}
	if docs := search(t, ix, "支付网关 回调超时", 8); len(docs) != 3 || docs[0].Snippet != want {
		t.Errorf("Chinese query over the decoded files: %+v", docs)
	}
	if docs := search(t, ix, "𠮷字 慢查询", 1); len(docs) != 1 || docs[0].Title != "Redis 超时 € › 排查" {
		t.Errorf("GB18030 four-byte file: %+v", docs)
	}
	var rows int
	if err := ix.db.QueryRowContext(context.Background(), `SELECT count(*) FROM kb_sections WHERE file_path IN ('runbooks/latin1.md', 'runbooks/broken-utf8.md')`).Scan(&rows); err != nil || rows != 0 {
		t.Fatalf("refused files have %d sections (%v)", rows, err)
	}

	// Unchanged: skipped without reading, still reported.
	again := mustSync(t, ix)
	if again.Files != 6 || again.Indexed != 0 || again.Skipped != 11 || again.ExcludedTotal != 6 {
		t.Fatalf("second sync %+v", again)
	}
	// A refused file fixed in place is indexed.
	writeFile(t, dir, "latin1.md", "# Café cache\n\n## Résumé\n\nFlush the cache naïvely.\n")
	fixed := mustSync(t, ix)
	if fixed.Indexed != 1 || fixed.ExcludedTotal != 5 {
		t.Fatalf("after fixing latin1.md: %+v", fixed)
	}
	if docs := search(t, ix, "naïvely", 1); len(docs) != 1 || docs[0].Title != "Café cache › Résumé" {
		t.Fatalf("fixed file: %+v", docs)
	}

	inv, err := Inspect(context.Background(), []string{dir})
	if err != nil {
		t.Fatal(err)
	}
	if inv.Files != 7 || inv.ExcludedTotal != 5 {
		t.Fatalf("Inspect %+v, want 7 files and 5 exclusions", inv)
	}
}

func FuzzDecode(f *testing.F) {
	entries, err := os.ReadDir(encodingsDir)
	if err != nil {
		f.Fatal(err)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(encodingsDir, e.Name()))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		text, enc, err := Decode(data)
		if err != nil {
			if text != "" || enc != "" {
				t.Fatalf("refused with text %q (%s)", text, enc)
			}
			return
		}
		if !utf8.ValidString(text) {
			t.Fatalf("%s decoding is not UTF-8: %q", enc, text)
		}
		if enc != EncodingUTF8 && strings.ContainsRune(text, utf8.RuneError) {
			t.Fatalf("%s decoding kept a replacement character: %q", enc, text)
		}
	})
}
