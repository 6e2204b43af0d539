"""Embedded replay: recorded events through the worker's own steps, with no broker, tables as dicts.

    inputs          read_inputs: files, directories, gzip, stdin -> InputRecords in log order (InputError)
    replayer        Replayer: each InputRecord through the stages, ReplaySummary, output_line (`--out` JSON lines)
    jobs            `omega replay --jobs N`: the log split by partition key over processes, merged in input order
"""
