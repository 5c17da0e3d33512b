"""The shared kit: the one mechanism for each job that several parts and families need (docs/explanation/architecture.md).

errors (one-line user errors), options (numeric option ranges), intervals (Wilson, bootstrap), metrics (the
breakdown and interval metrics every scorer logs), format (how a rate is printed), pinning (public data at pinned
revisions), calls and replies (asking a model, reading its reply), hub (writing to the Hugging Face Hub), logs (reading
Inspect logs: one line for a file that is not one, the settings that identify a run), outputs (an unwritable output
is one line; one writer per output folder), orphans (a child process that exits when its parent dies), aio (a command's
event loop run to its end: nothing left running for asyncio to print as it closes).
The kit imports only itself and `tombench.dsl`; it never imports a part that uses it.
"""
