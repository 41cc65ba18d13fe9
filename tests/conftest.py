"""Settings shared by the whole suite."""

import os

from hypothesis import HealthCheck, settings

# Property tests: enough examples to find rule bugs, bounded so `make test` stays quick on 2 cores.
settings.register_profile(
    "default",
    max_examples=int(os.environ.get("HYPOTHESIS_MAX_EXAMPLES", "60")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("default")
