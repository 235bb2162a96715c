// Package scripts holds the tests of the shell scripts that run the CPU test
// engine. They run a script from a copy of the repository whose ollama and
// servesim-testmodel are stand-ins, so no engine is built or started.
package scripts
