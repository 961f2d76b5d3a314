"""Fleet scale, the pure parts: where a log sits in a fleet, the finding table's rows, the masks that
turn unknown error lines into templates, and the summaries a fleet report shows. No I/O here; the
engines that read the logs live in ``rootcause.adapters.fleet``."""
