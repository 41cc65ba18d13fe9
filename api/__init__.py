"""The public read API under /api/v1/: what the pages show, as JSON with an OpenAPI schema (issue 29)."""
