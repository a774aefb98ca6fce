// Package datasets reads the published medical QA datasets into
// qa.Question values. It owns everything between a file on disk and the
// questions of a run:
//
//   - detection: the container of a file (JSON Lines, a JSON document,
//     column-oriented JSON, CSV, parquet) from its content, and its format
//     (schema) from the names of its fields (Detect; sniff.go);
//   - loading: one file per format (format_medqa.go, format_pubmedqa.go, …),
//     each declaring one formatDef — the format's name and help text, how it
//     is recognised from a sample of its fields and how one of its records
//     becomes a question — listed in formatTable; and one file per
//     container (container_jsonl.go, container_csv.go, …), listed in
//     containers. The generic reader (reader.go) and sniffer iterate over
//     these tables and name no format;
//   - validation: every question is checked (qa.Question.Check) and every
//     problem is a *ParseError at its file:line with a problem code; Stream,
//     Load and Check collect them for the report (load.go);
//   - ids: ContentID, which gives every copy of a question the same id, and
//     the duplicate check (duplicates.go);
//   - conversion to canonical JSONL and parquet (Convert; write.go);
//   - the registry of named datasets (Registry, Resolve) and the embedded
//     MedQA sample (Sample);
//   - sampling, sharding and option shuffling (Limit, StratifiedLimit,
//     Shard, ShuffleOptions).
//
// The question types (qa.Question, qa.Item, qa.Option) live in package qa,
// which a protocol imports without the loaders and their file-format
// dependencies. docs/datasets.md and README.md (in this folder) describe
// the formats in detail.
package datasets
