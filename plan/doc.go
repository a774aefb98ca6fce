// Package plan owns what a run is before and after it runs: the resolved
// plan as data (Spec, the settings that determine results, decoupled from
// any flag), the plan document and its hash that identify a run directory,
// resolving a Spec into question sets, arms and model endpoints, sharding and
// unsharding, the run directory (lock, journal, resume), the one manifest
// builder, and merging the run directories of a plan's shards.
//
// It calls no model itself: endpoints are opened by an Opener the caller
// passes in (the command line wires the concrete backends).
package plan
