package knowledge

import (
	"strconv"
	"strings"
)

// indexFormat prefixes the digest stored in kb_files.sha256. A row from an
// older format (before runbook text was redacted and bounded, before text
// encodings were decoded and names split for ranking, before setext headings
// started sections) is re-split even when its file did not change, so every
// stored section follows today's rules.
const indexFormat = "v4:"

// Marks that follow the content digest in kb_files.sha256, so every later
// Sync still reports a cut or refused file without reading it again.
const (
	// cutMark precedes the full section count of a file cut to
	// MaxSectionsPerFile.
	cutMark = "+sections="
	// refusedMark precedes the reason a file's text was refused (its
	// encoding); such a file has no sections.
	refusedMark = "+refused="
)

// digest is what kb_files.sha256 records of a file.
type digest struct {
	sum      string // hex SHA-256 of the file's bytes
	sections int    // full section count when cut (> MaxSectionsPerFile), else 0
	refused  string // why the text was refused, "" when indexed
}

// String is the stored form: indexFormat, the sum, then a mark.
func (d digest) String() string {
	switch {
	case d.refused != "":
		return indexFormat + d.sum + refusedMark + d.refused
	case d.sections > MaxSectionsPerFile:
		return indexFormat + d.sum + cutMark + strconv.Itoa(d.sections)
	}
	return indexFormat + d.sum
}

// parseDigest reads a stored digest; current is false for a row of an
// older format, which is re-split.
func parseDigest(stored string) (d digest, current bool) {
	rest, current := strings.CutPrefix(stored, indexFormat)
	if sum, reason, ok := strings.Cut(rest, refusedMark); ok {
		return digest{sum: sum, refused: reason}, current
	}
	sum, count, cut := strings.Cut(rest, cutMark)
	d.sum = sum
	if cut {
		d.sections, _ = strconv.Atoi(count) // an unparsable count reads as "not cut"
	}
	return d, current
}

// exclusion is the reason a file with this digest is listed, "" for none.
func (d digest) exclusion() string {
	switch {
	case d.refused != "":
		return d.refused
	case d.sections > MaxSectionsPerFile:
		return sectionsCut(d.sections)
	}
	return ""
}
