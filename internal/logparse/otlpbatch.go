package logparse

import (
	"bytes"
)

// This file reads the OpenTelemetry Collector file exporter's layout: one
// ExportLogsServiceRequest in OTLP/JSON per line,
// {"resourceLogs":[{"resource":{"attributes":[…]},"scopeLogs":[{"scope":{…},
// "logRecords":[{…},{…}]}]}]}, many log records per line. The layout's parse
// reads a line's first record (detection, entry boundaries, doctor); the
// scanner evaluates every record of a line through its each function, so
// time window, level, service and contains apply per record.

// Bounds of one batch line: records past MaxBatchRecords are not searched
// and are counted in cut_records; a body or attribute value that is a
// kvlist or array is rendered as JSON to maxAnyDepth levels and
// maxAnyBytes bytes (deeper levels are "…").
const (
	MaxBatchRecords = 10000
	maxAnyDepth     = 4
	maxAnyBytes     = 1024
	// maxBatchAttrs bounds the record attributes kept as fields, leaving
	// room for trace_id and span_id within maxFields.
	maxBatchAttrs = MaxFields - 2
)

// BatchYield receives one record of a batch line: its kind, the record
// (valid until the next one), and the raw JSON of the record and of its
// resource, which contains words are matched against.
type BatchYield func(kind LineKind, r *Record, raw, res []byte)

// parseOTLPBatch reads the first log record of a collector batch line; a
// batch without records is an untimed entry of its own, any other line a
// continuation.
func parseOTLPBatch(line []byte, tc *TimeCtx, r *Record) LineKind {
	kind := LineCont
	eachOTLPRecord(line, tc, r, 1, func(k LineKind, _ *Record, _, _ []byte) { kind = k })
	return kind
}

// eachOTLPBatch yields every record of a batch line up to MaxBatchRecords
// and returns how many records past that bound were cut.
func eachOTLPBatch(line []byte, tc *TimeCtx, r *Record, yield BatchYield) int {
	_, cut := eachOTLPRecord(line, tc, r, MaxBatchRecords, yield)
	return cut
}

// eachOTLPRecord walks a batch line and yields at most limit records; n is
// how many were yielded, cut how many more the line holds (counted only,
// without parsing them). A line that is no batch yields nothing; one whose
// JSON breaks part way yields the records before the break. A batch whose
// structure is read but holds no record yields one untimed empty record
// when limit is 1 (parse), so such a line is an entry of its own.
func eachOTLPRecord(line []byte, tc *TimeCtx, r *Record, limit int, yield BatchYield) (n, cut int) {
	i := skipSpace(line, 0)
	if i >= len(line) || line[i] != '{' || !bytes.HasPrefix(line[skipSpace(line, i+1):], []byte(`"resourceLogs"`)) {
		return 0, 0
	}
	ok := jsonMembers(line, i, func(key []byte, vs, ve int) bool {
		if string(key) != "resourceLogs" || line[vs] != '[' {
			return true
		}
		jsonElems(line, vs, func(rs, re int) bool {
			var resV, scopes []byte
			jsonMembers(line, rs, func(k []byte, vs, ve int) bool {
				switch string(k) {
				case "resource":
					resV = line[vs:ve]
				case "scopeLogs":
					scopes = line[vs:ve]
				}
				return true
			})
			if len(scopes) == 0 || scopes[0] != '[' {
				return true
			}
			var svc []byte
			if len(resV) > 0 && resV[0] == '{' {
				jsonMembers(resV, 0, func(k []byte, vs, ve int) bool {
					if string(k) == "attributes" {
						svc = otlpServiceName(resV[vs:ve])
					}
					return true
				})
			}
			jsonElems(scopes, 0, func(ss, se int) bool {
				jsonMembers(scopes, ss, func(k []byte, vs, ve int) bool {
					if string(k) != "logRecords" || scopes[vs] != '[' {
						return true
					}
					recs := scopes[vs:ve]
					jsonElems(recs, 0, func(ls, le int) bool {
						if le == len(recs) {
							if e, ok := jsonValueEnd(recs, ls); !ok || e != le {
								return false // a record the line's head cuts: not read
							}
						}
						if n >= limit {
							cut++ // counted, not parsed
							return true
						}
						if recs[ls] != '{' {
							return true
						}
						raw := recs[ls:le]
						kind := parseOTLPRecord(raw, tc, r, svc)
						n++
						yield(kind, r, raw, resV)
						return n < limit || limit > 1
					})
					return n < limit || limit > 1
				})
				return n < limit || limit > 1
			})
			return n < limit || limit > 1
		})
		return false
	})
	if ok && n == 0 && limit == 1 {
		r.reset()
		yield(LineUntimed, r, nil, nil)
	}
	return n, cut
}

// parseOTLPRecord reads one OTLP/JSON LogRecord object into r: time from
// timeUnixNano (observedTimeUnixNano when it is missing or 0), level from
// severityText or else severityNumber, message from the body, attributes,
// traceId and spanId as fields, service from the resource.
func parseOTLPRecord(obj []byte, tc *TimeCtx, r *Record, svc []byte) LineKind {
	r.reset()
	r.Service = svc
	var timeV, obsV, sevText, sevNum, traceID, spanID []byte
	jsonMembers(obj, 0, func(k []byte, vs, ve int) bool {
		v := obj[vs:ve]
		switch string(k) {
		case "timeUnixNano":
			timeV = scalarText(v)
		case "observedTimeUnixNano":
			obsV = scalarText(v)
		case "severityText":
			sevText = scalarText(v)
		case "severityNumber":
			sevNum = scalarText(v)
		case "body":
			r.Msg = anyText(v)
		case "traceId":
			traceID = scalarText(v)
		case "spanId":
			spanID = scalarText(v)
		case "attributes":
			if len(v) > 0 && v[0] == '[' {
				jsonElems(v, 0, func(as, ae int) bool {
					if len(r.Fields) >= maxBatchAttrs {
						return false
					}
					var key, val []byte
					jsonMembers(v, as, func(k []byte, vs, ve int) bool {
						switch string(k) {
						case "key":
							key = scalarText(v[vs:ve])
						case "value":
							val = anyText(v[vs:ve])
						}
						return true
					})
					if len(key) > 0 {
						r.Fields = append(r.Fields, KV{Key: key, Val: val})
					}
					return true
				})
			}
		}
		return true
	})
	if len(traceID) > 0 {
		r.Fields = append(r.Fields, KV{Key: []byte("trace_id"), Val: traceID})
	}
	if len(spanID) > 0 {
		r.Fields = append(r.Fields, KV{Key: []byte("span_id"), Val: spanID})
	}
	if l := normLevel(sevText); l != "" {
		r.Level = l
	} else if l := otelLevel(sevNum); l != "" {
		r.Level = l
	} else if bytes.HasPrefix(sevNum, []byte("SEVERITY_NUMBER_")) {
		r.Level = normLevel(bytes.TrimRight(sevNum[len("SEVERITY_NUMBER_"):], "0123456789"))
	}
	if len(timeV) == 0 || string(timeV) == "0" {
		timeV = obsV
	}
	if len(timeV) == 0 {
		return LineUntimed
	}
	ts, ok := valueTime(timeV, tc)
	if !ok {
		return LineUntimed
	}
	r.TS = ts
	return LineTimed
}

// scalarText is the text of a JSON scalar: a string decoded, a number,
// true or false as written; nil for null, objects and arrays.
func scalarText(v []byte) []byte {
	if len(v) == 0 {
		return nil
	}
	switch v[0] {
	case '"':
		s, _, ok := jsonString(v, 0)
		if !ok {
			return nil
		}
		return s
	case '{', '[', 'n':
		return nil
	}
	return v
}

// anyText is the text of an OTLP AnyValue object: a stringValue decoded,
// an int, double or bool as written, bytes as their base64, a kvlist or
// array rendered as bounded JSON.
func anyText(v []byte) []byte {
	if len(v) == 0 || v[0] != '{' {
		return scalarText(v)
	}
	var out []byte
	jsonMembers(v, 0, func(k []byte, vs, ve int) bool {
		switch string(k) {
		case "stringValue", "intValue", "doubleValue", "boolValue", "bytesValue":
			out = scalarText(v[vs:ve])
		case "kvlistValue", "arrayValue":
			out = appendAny(nil, v, 0, len(v), 0)
			if len(out) > maxAnyBytes {
				out = out[:maxAnyBytes]
			}
		}
		return false
	})
	return out
}

// appendAny appends the AnyValue object b[s:e] as JSON: strings as written,
// kvlists as objects, arrays as arrays, nested at most maxAnyDepth levels
// and stopping once maxAnyBytes are written.
func appendAny(buf, b []byte, s, e, depth int) []byte {
	if depth > maxAnyDepth {
		return append(buf, `"…"`...)
	}
	if b[s] != '{' {
		return append(buf, "null"...)
	}
	wrote := false
	jsonMembers(b[:e], s, func(k []byte, vs, ve int) bool {
		wrote = true
		switch string(k) {
		case "stringValue", "bytesValue":
			buf = append(buf, b[vs:ve]...)
		case "intValue":
			buf = append(buf, bytes.Trim(b[vs:ve], `"`)...)
		case "doubleValue", "boolValue":
			buf = append(buf, b[vs:ve]...)
		case "kvlistValue", "arrayValue":
			kvlist := string(k) == "kvlistValue"
			open, closing := byte('['), byte(']')
			if kvlist {
				open, closing = '{', '}'
			}
			buf = append(buf, open)
			first := true
			jsonMembers(b[:ve], vs, func(k2 []byte, ws, we int) bool {
				if string(k2) != "values" || b[ws] != '[' {
					return true
				}
				jsonElems(b[:we], ws, func(es, ee int) bool {
					if len(buf) >= maxAnyBytes {
						return false
					}
					if !first {
						buf = append(buf, ',')
					}
					first = false
					if !kvlist {
						buf = appendAny(buf, b, es, ee, depth+1)
						return true
					}
					var key []byte
					vs2, ve2 := -1, -1
					jsonMembers(b[:ee], es, func(k3 []byte, xs, xe int) bool {
						switch string(k3) {
						case "key":
							key = b[xs:xe]
						case "value":
							vs2, ve2 = xs, xe
						}
						return true
					})
					if len(key) == 0 || key[0] != '"' {
						key = []byte(`""`)
					}
					buf = append(append(buf, key...), ':')
					if vs2 < 0 {
						buf = append(buf, "null"...)
					} else {
						buf = appendAny(buf, b, vs2, ve2, depth+1)
					}
					return true
				})
				return true
			})
			buf = append(buf, closing)
		default:
			wrote = false
			return true
		}
		return false
	})
	if !wrote {
		buf = append(buf, "null"...)
	}
	return buf
}

// jsonValueEnd returns the index after the JSON value starting at b[i].
func jsonValueEnd(b []byte, i int) (int, bool) {
	switch b[i] {
	case '"':
		_, next, ok := jsonString(b, i)
		return next, ok
	case '{', '[':
		return jsonSkip(b, i)
	}
	start := i
	for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && b[i] != ' ' && b[i] != '\t' && b[i] != '\r' && b[i] != '\n' {
		i++
	}
	return i, i > start
}

// jsonMembers calls fn with each member of the object at b[i] ('{'): its
// decoded key and the span of its value; fn returns false to stop. ok is
// false when the object is malformed before fn stopped.
func jsonMembers(b []byte, i int, fn func(key []byte, vs, ve int) bool) bool {
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return true
	}
	for {
		i = skipSpace(b, i)
		if i >= len(b) || b[i] != '"' {
			return false
		}
		key, next, ok := jsonString(b, i)
		if !ok {
			return false
		}
		i = skipSpace(b, next)
		if i >= len(b) || b[i] != ':' {
			return false
		}
		i = skipSpace(b, i+1)
		if i >= len(b) {
			return false
		}
		next, done, ok := walkValue(b, i, '}', func(vs, ve int) bool { return fn(key, vs, ve) })
		if done {
			return ok
		}
		i = next
	}
}

// walkValue is the step that object members and array elements share:
// it hands the value at b[i] to fn and reads what follows it, ',' or the
// container's closer. next is where the following member or element
// starts; done is set when the walk ends there (the closer, fn stopping,
// or malformed JSON), with ok false for malformed JSON. A value that b
// ends inside (a line cut to its head, or broken part way) is an array
// or object still handed to fn as reaching the end of b, so its complete
// members are walked; the walk reports it as malformed.
func walkValue(b []byte, i int, closer byte, fn func(vs, ve int) bool) (next int, done, ok bool) {
	end, valid := jsonValueEnd(b, i)
	if !valid {
		if b[i] == '{' || b[i] == '[' {
			fn(i, len(b))
		}
		return 0, true, false
	}
	if !fn(i, end) {
		return 0, true, true
	}
	i = skipSpace(b, end)
	switch {
	case i >= len(b):
		return 0, true, false
	case b[i] == ',':
		return i + 1, false, true
	case b[i] == closer:
		return 0, true, true
	}
	return 0, true, false
}

// jsonElems calls fn with the span of each element of the array at b[i]
// ('['); fn returns false to stop. ok is false when the array is malformed.
func jsonElems(b []byte, i int, fn func(vs, ve int) bool) bool {
	if i >= len(b) || b[i] != '[' {
		return false
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return true
	}
	for {
		i = skipSpace(b, i)
		if i >= len(b) {
			return false
		}
		next, done, ok := walkValue(b, i, ']', fn)
		if done {
			return ok
		}
		i = next
	}
}
