"""Suite-wide settings. The `skill` client reads a built-in default source on the public internet; no test may
ever try to reach it (there is no network here, and a test must not depend on one), so it is turned off for
every test and every process a test starts. Tests of the default source point it at a local server instead."""

import os

os.environ["SKILL_DEFAULT_SOURCE"] = "none"
