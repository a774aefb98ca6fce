package sim

// The core's own call kind: the shared first answer of the protocols
// (protocols/firstanswer, protocols/kit/kinds.go). Every other kind is a
// protocol's or a task's, answered by its registered Behaviour.
const kindFirst = "first"
