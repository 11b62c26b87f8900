package knowledge

import (
	"path"
	"strings"
)

// Column weights of bm25 over (title, body, meta): a match in the heading
// path counts three times a match in the body.
const (
	weightTitle = 3.0
	weightBody  = 1.0
	weightMeta  = 1.5
)

// fileWords is what a file's name adds to the title column of each of its
// sections: its base name without the extension, with the words of a
// CamelCase name ("KubePodCrashLooping.md" → kube pod crash looping); '-'
// and '_' already separate words for the tokenizer.
func fileWords(key string) string {
	base := path.Base(key)
	base = strings.TrimSuffix(base, pathExt(base))
	return base + " " + identWords(base)
}

// titleText is the title column of a section: the heading path, the words
// of the identifiers in it, and its file's name words, so alert and rule
// names are matched at the title's weight however they are written.
func titleText(title, name string) string {
	return Segment(title + "\n" + identWords(title) + "\n" + name)
}
