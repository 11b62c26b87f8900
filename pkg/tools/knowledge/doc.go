// Package knowledge is the lookup_knowledge evidence tool: it indexes the
// team's Markdown runbooks into the run store's SQLite FTS5 index and
// searches them.
//
// # Sections and doc_ids
//
// Each *.md / *.markdown file under the configured roots (hidden files and
// directories skipped) is split at its top-level headings of levels 1–3,
// ATX ("## Text") or setext ("Text" over "===" or "---"), as goldmark's
// CommonMark block parser finds them; headings inside fenced code blocks do
// not count, YAML front matter is stripped (and
// indexed as metadata), and a section body longer than MaxSectionBytes is cut
// into parts at paragraph, line or word breaks. A section's doc_id is
// "<source>#<anchor>": source is the root's base name plus the slash path
// relative to the root (e.g. "runbooks/redis-timeout.md"), and anchor is the
// GitHub-style slug of the heading (CJK kept, repeated headings numbered
// "-1", "-2" in document order; "top" for text before the first heading;
// "<anchor>-part2" … for the parts of a long section). Its title is the
// heading path "Runbook › Section › Sub". Both are stable across reindexing
// as long as the file's headings do not change.
//
// # What is read, and what is left out
//
// A knowledge path must be a directory or a regular file, not on a pseudo
// file system (proc, sysfs, cgroup…): anything else is refused with
// ErrRootInvalid. Inside a tree, the walk never descends into a pseudo file
// system, never opens a FIFO, device or socket, and never follows a
// symbolic link out of the configured paths: a link is resolved first, one
// leading outside is skipped (reported), a dangling or looping one is
// skipped with a warning, one to a Markdown file inside the paths is indexed
// under its own name, and one to a directory is not descended (its target
// is indexed where it lives, so links cannot loop). A file is read without
// following links and at most MaxFileBytes of it (a larger one is skipped),
// and contributes at most MaxSectionsPerFile sections. Its bytes are decoded
// by Decode: UTF-8 (BOM dropped), UTF-16 with a BOM, or GB18030/GBK when they
// are not UTF-8, decode without an invalid sequence and read as Chinese text;
// anything else is refused with its reason, never indexed as mojibake (a
// refused file keeps a kb_files row without sections, so it is reported on
// every Sync but read again only when it changes). Documents that are not
// Markdown (.txt, .rst, .adoc, .html, .pdf …) are reported too; images and
// other files are passed over. Every skip is listed in Stats.Excluded (and by
// Inspect, for doctor). A section repeating the heading path and text of
// another of its file is dropped. Runbook text is redacted (redact.String)
// before it is stored, and again as results are served.
//
// # Incremental sync
//
// Sync stats every file: unchanged size and mtime are skipped, changed ones
// are hashed (same SHA-256: only size and mtime are updated; otherwise the
// file's sections are replaced), and files no longer under the roots are
// dropped, so the index always mirrors the current roots. Writes go in
// batches of one transaction each. The tool syncs on every use; `kb search`
// only checks the roots (CheckRoots) and lets the tool sync, so one search
// walks the tree once (BenchmarkSearchFresh: sync and search over 1,000
// unchanged files).
//
// # Tokenizer strategy (Chinese and English)
//
// The FTS5 table (migrations/0001_knowledge.sql) is contentless, with the
// tokenizer "porter unicode61 remove_diacritics 2" and columns title, body
// and meta (source path and front matter). unicode61 does not segment
// Chinese (a whole run of Han characters would be one token), nor CamelCase
// (the title column therefore also holds the words of every CamelCase
// identifier of the heading path and of the file's base name, see
// IdentParts: "KubePodCrashLooping.md" adds kube pod crash looping; '-' and
// '_' already separate words). The text is
// segmented in Go before it reaches FTS5: every run of Han, Hiragana or
// Katakana characters becomes its overlapping bigrams ("支付超时" →
// "支付 付超 超时"), and a lone CJK character stays a one-character token.
// The query is segmented the same way, so a two-character word such as
// "超时" or "连接" is an exact bigram token and longer words are several
// bigrams; a lone CJK character in a query becomes a prefix term ("慢"*) that
// matches every bigram starting with it. English words go through unicode61
// and the Porter stemmer ("timeouts" finds "timeout"). The trigram tokenizer
// was not used because it cannot match the two-character words that Chinese
// queries are mostly made of.
//
// # Queries and scores
//
// The user's text is never passed as FTS5 syntax: BuildQuery cuts it into
// the index's tokens, drops a few English stopwords, double-quotes every term
// and joins them with OR, so a query syntax error is impossible and a mixed
// query like "order-service 支付超时 504" still ranks the payment-timeout
// runbook first. When at least topK sections hold every term, the same terms
// joined with AND are ranked instead: the result is then the best of the
// sections that match the whole query, and bm25 (whose cost grows with the
// number of matching rows) only ranks those. A CamelCase word of the query
// matches whole or by its words: "x" OR ("x1" AND "x2" …) when every term is
// required, all of them ORed otherwise. Ranking is bm25 with column weights
// title 3, body 1, meta 1.5 over topK×4 candidates; in the OR case the
// candidates are ordered first by how many of the query's atoms (terms, and
// the words of its identifiers) they hold, counted in Go on their text. Then
// diversify keeps the topK: a section with the same text as a better one is
// dropped, and at most MaxSectionsPerResult sections of one file are kept
// while other files match (when fewer files match, the rest fill up; an AND
// result that needs such filling falls through to the OR ranking, which may
// bring other files). The score returned is the number of atoms covered
// (0 for a one-atom query without synonyms) plus (literal + s/(1+s))/34 with
// s = -bm25 (FTS5's bm25 is negative, lower is better) and literal the
// atoms held in the query's own word (counted for a one-atom query only), so
// it is positive, higher is better, and in result order; it is comparable
// only within one search.
//
// # Synonyms
//
// Runbooks name one concept in several words, and a paraphrased question
// seldom uses the runbook's: "container keeps restarting" against
// KubePodCrashLooping, "节点磁盘快满了" against NodeFilesystemSpaceFillingUp.
// synonymGroups is a fixed vocabulary of alert runbooks (Prometheus,
// Kubernetes, databases, queues; no rule names a file), each member one
// index token (an English word, or a two-character Chinese word, one
// bigram). A query term of a group is ORed with the group's other members,
// in the AND and the OR expression alike, and its atom is covered by any of
// them. A query without Chinese gets English synonyms only, so an English
// question does not pull in a runbook's Chinese translation; a Chinese one
// reaches English runbooks too. In a one-atom query a section holding the
// word itself ranks before one holding only a synonym ("超时": the Chinese
// runbook before the English "timeout" one); with more atoms, coverage and
// then bm25 decide. TestPublicRunbooks measures all of this on a public
// corpus kept outside the repository (SUPERBIZ_PUBLIC_RUNBOOKS). The snippet (at most SnippetBytes, cut on rune
// boundaries) is taken from the original section text around the place where
// most query terms occur together, with control and format characters
// removed. Runbook text is returned as data only.
package knowledge
