package knowledge

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/superbiz/superbiz/internal/goldenfile"
)

func TestSplit(t *testing.T) {
	tests := []struct {
		name    string
		file    string
		content string
		want    []Section
		front   string
	}{
		{
			name:    "headings build the title path and anchors",
			file:    "redis.md",
			content: "# Redis timeout\nintro\n## Symptoms\nslow\n### Slow log\nSLOWLOG GET\n## Fix\nscan\n",
			want: []Section{
				{Anchor: "redis-timeout", Title: "Redis timeout", Body: "intro"},
				{Anchor: "symptoms", Title: "Redis timeout › Symptoms", Body: "slow"},
				{Anchor: "slow-log", Title: "Redis timeout › Symptoms › Slow log", Body: "SLOWLOG GET"},
				{Anchor: "fix", Title: "Redis timeout › Fix", Body: "scan"},
			},
		},
		{
			name:    "duplicate headings are numbered like GitHub, empty sections reserve their anchor",
			file:    "a.md",
			content: "# A\n## Steps\none\n## Steps\ntwo\n## Steps\n## Steps\nfour\n",
			want: []Section{
				{Anchor: "steps", Title: "A › Steps", Body: "one"},
				{Anchor: "steps-1", Title: "A › Steps", Body: "two"},
				{Anchor: "steps-3", Title: "A › Steps", Body: "four"},
			},
		},
		{
			name:    "CJK headings keep their characters, punctuation dropped",
			file:    "支付.md",
			content: "# 支付超时排查手册\n## 现象（504）\n大量 504\n## 处理方案: 熔断!\n打开熔断\n",
			want: []Section{
				{Anchor: "现象504", Title: "支付超时排查手册 › 现象（504）", Body: "大量 504"},
				{Anchor: "处理方案-熔断", Title: "支付超时排查手册 › 处理方案: 熔断!", Body: "打开熔断"},
			},
		},
		{
			name:    "front matter is stripped and kept as metadata",
			file:    "fm.md",
			content: "---\ntitle: x\ntags: [redis]\n---\n# Title\nbody\n",
			front:   "title: x\ntags: [redis]",
			want:    []Section{{Anchor: "title", Title: "Title", Body: "body"}},
		},
		{
			name:    "an unclosed front matter block is text",
			file:    "fm.md",
			content: "---\ntitle: x\n",
			want:    []Section{{Anchor: "top", Title: "fm", Body: "---\ntitle: x"}},
		},
		{
			name:    "text before the first heading is #top, a file without H1 uses its name",
			file:    "notes.markdown",
			content: "\ufeffpreface\r\n## Only\r\nbody\r\n",
			want: []Section{
				{Anchor: "top", Title: "notes", Body: "preface"},
				{Anchor: "only", Title: "notes › Only", Body: "body"},
			},
		},
		{
			name:    "headings in fenced code and level 4+ stay in the body",
			file:    "c.md",
			content: "# C\n```sh\n# not a heading\n```\n#### Minor\ntext\n#hashtag\n",
			want: []Section{
				{Anchor: "c", Title: "C", Body: "```sh\n# not a heading\n```\n#### Minor\ntext\n#hashtag"},
			},
		},
		{
			name:    "closing hashes are not part of the heading",
			file:    "h.md",
			content: "## Fix it ##\nx\n## C# usage\ny\n",
			want: []Section{
				{Anchor: "fix-it", Title: "h › Fix it", Body: "x"},
				{Anchor: "c-usage", Title: "h › C# usage", Body: "y"},
			},
		},
		{
			name:    "a heading without letters gets a name",
			file:    "p.md",
			content: "# !!!\nx\n",
			want:    []Section{{Anchor: "section", Title: "!!!", Body: "x"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Split(tt.file, tt.content)
			if got.FrontMatter != tt.front {
				t.Errorf("front matter = %q, want %q", got.FrontMatter, tt.front)
			}
			if len(got.Sections) != len(tt.want) {
				t.Fatalf("got %d sections %+v, want %d", len(got.Sections), got.Sections, len(tt.want))
			}
			for i := range tt.want {
				if got.Sections[i] != tt.want[i] {
					t.Errorf("section %d = %+v, want %+v", i, got.Sections[i], tt.want[i])
				}
			}
		})
	}
}

func TestSplitLongSection(t *testing.T) {
	var b strings.Builder
	b.WriteString("# 长文档\n## Steps\n")
	for i := 0; b.Len() < 3*MaxSectionBytes; i++ {
		b.WriteString("检查连接池 check the connection pool and the slow query log.\n")
		if i%7 == 0 {
			b.WriteString("\n")
		}
	}
	b.WriteString(strings.Repeat("超", 2*MaxSectionBytes)) // no break at all
	page := Split("long.md", b.String())
	if len(page.Sections) < 4 {
		t.Fatalf("got %d sections, want the long body cut in parts", len(page.Sections))
	}
	total := 0
	for i, s := range page.Sections {
		if len(s.Body) > MaxSectionBytes {
			t.Errorf("part %d is %d bytes", i, len(s.Body))
		}
		if !utf8.ValidString(s.Body) {
			t.Errorf("part %d cut inside a rune", i)
		}
		want := "steps"
		if i > 0 {
			want = "steps-part" + strconv.Itoa(i+1)
		}
		if s.Anchor != want {
			t.Errorf("part %d anchor %q, want %q", i, s.Anchor, want)
		}
		total += len(s.Body)
	}
	if !strings.HasSuffix(page.Sections[len(page.Sections)-1].Title, ")") {
		t.Errorf("part title %q has no part number", page.Sections[len(page.Sections)-1].Title)
	}
	if total < 3*MaxSectionBytes {
		t.Errorf("parts hold %d bytes, text was lost", total)
	}
}

func TestSlugBounded(t *testing.T) {
	s := Slug(strings.Repeat("很长的标题", 40))
	if len(s) > maxAnchorBytes || !utf8.ValidString(s) || s == "" {
		t.Fatalf("slug %q (%d bytes) not bounded", s, len(s))
	}
}

// Setext headings ("Title" over "===" or "---") start sections like ATX
// ones, a multi-line one included; a "#" line in a fenced code block and a
// thematic break after a blank line start nothing.
func TestSplitSetext(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "setext", "mysql-disk-full.md"))
	if err != nil {
		t.Fatal(err)
	}
	got := Split("mysql-disk-full.md", string(data)).Sections
	want := []Section{
		{Anchor: "mysql-disk-full", Title: "MySQL disk full", Body: "When the data volume of the MySQL host fills up, every write fails."},
		{Anchor: "symptoms", Title: "MySQL disk full › Symptoms", Body: "- `No space left on device` in the MySQL error log.\n- order-service returns 500 on every checkout.\n\n```bash\n# a comment in a fenced block is not a heading\ndf -h /var/lib/mysql\n```"},
		{Anchor: "binary-logs-and-slow-query-logs", Title: "MySQL disk full › Binary logs and slow query logs", Body: "Purge binary logs older than the replicas need.\n\n---\n\nA thematic break after a blank line is not an underline."},
		{Anchor: "verify", Title: "MySQL disk full › Binary logs and slow query logs › Verify", Body: "Free space is back above 20%."},
	}
	if len(got) != len(want) {
		t.Fatalf("%d sections, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("section %d:\n got %+v\nwant %+v", i, got[i], want[i])
		}
	}
}

// TestSplitGolden pins the sections of a realistic runbook.
func TestSplitGolden(t *testing.T) {
	src := filepath.Join("testdata", "runbooks", "payment-timeout.zh.md")
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.MarshalIndent(Split(filepath.Base(src), string(data)), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	goldenfile.Check(t, "golden/payment-timeout.zh.json.golden", append(got, '\n'))
}
