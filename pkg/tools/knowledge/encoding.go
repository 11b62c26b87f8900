package knowledge

import (
	"bytes"
	"errors"
	"fmt"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/simplifiedchinese"
	xunicode "golang.org/x/text/encoding/unicode"
)

// Text encodings a runbook is read in; Decode names the one it used.
const (
	EncodingUTF8    = "UTF-8"
	EncodingUTF16LE = "UTF-16LE"
	EncodingUTF16BE = "UTF-16BE"
	EncodingGB18030 = "GB18030"
)

// minCJKShare is the share of a GB18030 decoding's non-ASCII characters that
// must be Chinese (Han, CJK punctuation, full-width forms, kana) for bytes
// that are not UTF-8 to be read as GBK/GB18030 rather than refused: Latin-1
// or binary data rarely decodes cleanly, and never to mostly Chinese text.
const minCJKShare = 0.9

// maxNULShare: text where one byte in maxNULShare or more is NUL is binary
// data or UTF-16 without a byte order mark (half its bytes are NUL); a stray
// NUL in a text file is only a control character, removed as others are.
const maxNULShare = 16

// Errors of Decode; the exclusion names the one that applied.
var (
	errBinary  = errors.New("binary data (NUL bytes) or UTF-16 without a byte order mark")
	errUTF16   = errors.New("invalid UTF-16 after its byte order mark")
	errUnknown = errors.New("neither UTF-8, UTF-16 with a byte order mark, nor GB18030/GBK Chinese text")
)

// Decode turns a runbook's bytes into UTF-8 text: UTF-8 (a byte order mark
// dropped), UTF-16 with a byte order mark, or GB18030 (a superset of GBK)
// when the bytes are not UTF-8, decode without a single invalid sequence, and
// read as Chinese text. Anything else is refused with the reason, so no
// mis-decoded text (mojibake) is ever indexed. It returns the encoding used.
// Limit: Korean EUC-KR (and Japanese EUC-JP) bytes fall in the same GB2312
// ranges and can decode cleanly to Chinese characters; they are not told
// apart from GBK.
func Decode(data []byte) (text, enc string, err error) {
	switch {
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE}):
		return decodeUTF16(data, xunicode.LittleEndian, EncodingUTF16LE)
	case bytes.HasPrefix(data, []byte{0xFE, 0xFF}):
		return decodeUTF16(data, xunicode.BigEndian, EncodingUTF16BE)
	}
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	if nul := bytes.Count(data, []byte{0}); nul > 0 && nul >= len(data)/maxNULShare {
		return "", "", errBinary
	}
	if utf8.Valid(data) {
		return string(data), EncodingUTF8, nil
	}
	text, ok := decodeStrict(simplifiedchinese.GB18030, data)
	if !ok || !mostlyCJK(text) {
		return "", "", errUnknown
	}
	return text, EncodingGB18030, nil
}

// decodeUTF16 decodes UTF-16 with its byte order mark, refusing an odd length
// or an unpaired surrogate instead of replacing it.
func decodeUTF16(data []byte, order xunicode.Endianness, name string) (string, string, error) {
	if len(data)%2 != 0 {
		return "", "", fmt.Errorf("%w: odd number of bytes", errUTF16)
	}
	text, ok := decodeStrict(xunicode.UTF16(order, xunicode.ExpectBOM), data)
	if !ok {
		return "", "", errUTF16
	}
	if bytes.IndexByte([]byte(text), 0) >= 0 {
		return "", "", fmt.Errorf("%w: NUL characters", errUTF16)
	}
	return text, name, nil
}

// decodeStrict decodes data, reporting false when the decoder had to
// substitute U+FFFD for an invalid sequence (one already in the input, encoded
// properly, cannot be told apart and also counts as invalid: runbooks do not
// carry replacement characters on purpose).
func decodeStrict(e encoding.Encoding, data []byte) (string, bool) {
	out, err := e.NewDecoder().Bytes(data)
	if err != nil || bytes.ContainsRune(out, utf8.RuneError) {
		return "", false
	}
	return string(out), true
}

// mostlyCJK reports whether at least minCJKShare of the non-ASCII characters
// of text are Chinese or Japanese script or CJK punctuation.
func mostlyCJK(text string) bool {
	var cjk, other int
	for _, r := range text {
		switch {
		case r < utf8.RuneSelf:
		case isCJK(r), unicode.In(r, cjkPunct...):
			cjk++
		default:
			other++
		}
	}
	return cjk > 0 && float64(cjk) >= minCJKShare*float64(cjk+other)
}

// cjkPunct are the punctuation and symbol blocks of GBK text: CJK symbols
// and punctuation, full-width forms, general punctuation (“ ” … —), box
// drawing and geometric shapes, and the Greek and Cyrillic letters and
// numerals GB2312 carries.
var cjkPunct = []*unicode.RangeTable{{R16: []unicode.Range16{
	{Lo: 0x00B7, Hi: 0x00B7, Stride: 1},
	{Lo: 0x00D7, Hi: 0x00D7, Stride: 1},
	{Lo: 0x00F7, Hi: 0x00F7, Stride: 1},
	{Lo: 0x0391, Hi: 0x03C9, Stride: 1},
	{Lo: 0x0401, Hi: 0x0451, Stride: 1},
	{Lo: 0x2010, Hi: 0x2312, Stride: 1},
	{Lo: 0x2460, Hi: 0x27BF, Stride: 1},
	{Lo: 0x3000, Hi: 0x303F, Stride: 1},
	{Lo: 0x3200, Hi: 0x33FF, Stride: 1},
	{Lo: 0xFE30, Hi: 0xFE4F, Stride: 1},
	{Lo: 0xFF00, Hi: 0xFFEF, Stride: 1},
}}}
