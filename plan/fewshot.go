package plan

import (
	"path/filepath"
	"strings"

	"github.com/medteam-bench/medteam/datasets"
	"github.com/medteam-bench/medteam/protocol"
	"github.com/medteam-bench/medteam/qa"
)

// fewshot loads the training split of --fewshot-file (nil without one): a
// dataset in any supported format, named in rows by its base name and in
// the plan by its content hash.
func (s Spec) fewshot() (*protocol.Fewshot, error) {
	if s.FewshotFile == "" {
		return nil, nil
	}
	qs, ref, err := LoadDataset(s.FewshotFile, Spec{DataDir: s.DataDir})
	if err != nil {
		msg := strings.TrimPrefix(err.Error(), "--dataset "+s.FewshotFile+": ")
		return nil, Inputf("--fewshot-file %s: %s\n(give a training split, in any supported dataset format, that shares no question with the evaluated datasets)", s.FewshotFile, msg)
	}
	return &protocol.Fewshot{Name: filepath.Base(s.FewshotFile), SHA256: ref.SHA256, Questions: qs}, nil
}

// contentKey identifies a question by its content whatever its dataset or
// id: datasets.ContentID over the stem, the context passages and the option
// texts, with no dataset name.
func contentKey(q qa.Question) string {
	return datasets.ContentID("", q.Stem, q.Context, q.Options)
}

// checkFewshot refuses a training split that shares a question (same
// content, datasets.ContentID) with the dataset evaluated (all its
// questions, before --limit and --shard, so every shard and sample of a plan
// agrees): few-shot examples drawn from the evaluated set would show the
// model gold answers it is scored on.
func checkFewshot(fs *protocol.Fewshot, file, dataset string, qs []qa.Question) error {
	if fs == nil {
		return nil
	}
	train := make(map[string]string, len(fs.Questions))
	for _, q := range fs.Questions {
		train[contentKey(q)] = q.ID
	}
	n, example, exampleTrain := 0, "", ""
	for _, q := range qs {
		if id, ok := train[contentKey(q)]; ok {
			if n == 0 {
				example, exampleTrain = q.ID, id
			}
			n++
		}
	}
	if n == 0 {
		return nil
	}
	same := ""
	if exampleTrain != example {
		same = " (" + exampleTrain + " in " + fs.Name + ")"
	}
	return Inputf("--fewshot-file %s shares %d question(s) with --dataset %s, e.g. %s%s: few-shot examples must come from a training split disjoint from the evaluated set; give the dataset's training split", file, n, dataset, example, same)
}

// checkFewshotDataset refuses, when medqaOnly, a dataset that is not MedQA
// (a question whose Dataset is not datasets.DatasetMedQA): MDAgents' public
// code (mitmedialab/MDAgents utils.py, process_basic_query and
// process_intermediate_query: "if args.dataset == 'medqa'") builds its
// few-shot exemplars on MedQA only and runs every other dataset zero-shot.
// --fewshot-any is the explicit switch to the other reading.
func checkFewshotDataset(medqaOnly bool, file, dataset string, qs []qa.Question) error {
	if !medqaOnly {
		return nil
	}
	for _, q := range qs {
		if q.Dataset == datasets.DatasetMedQA {
			continue
		}
		name := q.Dataset
		if name == "" {
			name = "unnamed"
		}
		return Inputf("--fewshot-file %s with --dataset %s: that dataset is %s (question %s), not MedQA, and MDAgents' public code shows few-shot exemplars on MedQA only "+
			"(utils.py process_basic_query and process_intermediate_query: if args.dataset == 'medqa'; other datasets run zero-shot)\n"+
			"(drop --fewshot-file to run this dataset as the code does, or give --fewshot-any to show the exemplars on it too, a recorded deviation; see docs/protocols.md#mdagents)",
			file, dataset, name, q.ID)
	}
	return nil
}
