// Package tasks is the registry of the tasks medteam scores: the one place a
// new task is added (one value in All; see package task for the contract).
package tasks

import (
	"github.com/medteam-bench/medteam/task"
	"github.com/medteam-bench/medteam/tasks/choice"
	"github.com/medteam-bench/medteam/tasks/triage"
)

// All returns the registered tasks, one per item kind.
func All() task.Registry {
	return task.Registry{
		choice.Task,
		triage.Task,
	}
}
