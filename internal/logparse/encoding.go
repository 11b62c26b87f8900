package logparse

import (
	"bufio"
	"bytes"
	"io"

	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"
)

// UTF8BOM is the byte order mark some Windows tools write before UTF-8 text.
var UTF8BOM = []byte{0xef, 0xbb, 0xbf}

// IsUTF16 reports whether a file starts with a UTF-16 byte order mark.
func IsUTF16(magic []byte) bool {
	return len(magic) >= 2 && ((magic[0] == 0xff && magic[1] == 0xfe) || (magic[0] == 0xfe && magic[1] == 0xff))
}

// DecodeBOM returns r as UTF-8: UTF-16 (little or big endian, told by its
// byte order mark) is decoded, a UTF-8 byte order mark dropped, anything
// else passed through unchanged.
func DecodeBOM(r io.Reader) io.Reader {
	br := bufio.NewReader(r)
	head, _ := br.Peek(3) // a shorter stream is judged by what there is
	switch {
	case IsUTF16(head):
		return transform.NewReader(br, unicode.BOMOverride(unicode.UTF8.NewDecoder()))
	case bytes.HasPrefix(head, UTF8BOM):
		_, _ = br.Discard(len(UTF8BOM)) // Peek returned these bytes: Discard cannot fail
	}
	return br
}
