package logs

import (
	"bytes"

	"github.com/superbiz/superbiz/internal/loglayout"
)

// customLayout is a source's own line layout (format custom): the compiled
// pattern and time layout of internal/loglayout, with its field names as bytes
// so a parsed line allocates nothing for them.
type customLayout struct {
	l     *loglayout.Layout
	names [][]byte
}

// newCustomLayout compiles a source's pattern and time layout into the
// registry entry format custom reads with; the error names the config key
// at fault.
func newCustomLayout(pattern, timeLayout string) (*layout, error) {
	l, err := loglayout.Compile(pattern, timeLayout)
	if err != nil {
		return nil, err
	}
	c := &customLayout{l: l}
	for _, f := range l.Fields {
		c.names = append(c.names, []byte(f.Name))
	}
	return &layout{name: layoutCustom, parse: c.parse}, nil
}

// parse reads one line: a line the pattern does not match continues the
// previous entry (a stack frame); a match whose ts group does not parse is
// an entry of its own that cannot be placed in time.
func (c *customLayout) parse(line []byte, tc *timeCtx, r *record) lineKind {
	m := c.l.Match(line)
	if m == nil {
		return lineCont
	}
	group := func(i int) []byte {
		if i < 0 || m[2*i] < 0 {
			return nil
		}
		return line[m[2*i]:m[2*i+1]]
	}
	r.msg = bytes.TrimRight(group(c.l.Msg), " \r")
	r.service = group(c.l.Service)
	if lv := group(c.l.Level); len(lv) > 0 {
		if r.level = normLevel(lv); r.level == "" {
			r.fields = append(r.fields, kv{[]byte(loglayout.GroupLevel), lv})
		}
	}
	for i, f := range c.l.Fields {
		if v := group(f.Group); v != nil {
			r.fields = append(r.fields, kv{c.names[i], v})
		}
	}
	ts, ok := c.l.Time(group(c.l.TS), tc.loc, tc.year, tc.endNS)
	if !ok {
		return lineUntimed
	}
	r.ts = ts
	return lineTimed
}
