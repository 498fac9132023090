"""The service's Prometheus metrics (GET /metrics), in a registry of its own."""

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

from .engine import entity_counts


class Metrics:
    def __init__(self):
        self.registry = CollectorRegistry()
        self.requests = Counter(
            "meddocan_deid_requests",
            "HTTP requests by route, method and status",
            ["route", "method", "status"],
            registry=self.registry,
        )
        self.latency = Histogram(
            "meddocan_deid_request_seconds",
            "Request latency by route",
            ["route"],
            registry=self.registry,
            buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60),
        )
        self.texts = Counter(
            "meddocan_deid_texts", "Texts processed by route", ["route"], registry=self.registry
        )
        self.entities = Counter(
            "meddocan_deid_entities",
            "PHI entities found, by label",
            ["label"],
            registry=self.registry,
        )

    def watch(self, engine) -> None:
        """Gauges read from the engine at each scrape: requests in flight, queued, waiting for a
        slot, in the long lane."""
        for name, doc, read in (
            (
                "meddocan_deid_requests_in_flight",
                "Requests admitted and not finished",
                lambda: engine.in_flight,
            ),
            (
                "meddocan_deid_requests_queued",
                "Requests admitted and waiting for a lane",
                lambda: engine.queued,
            ),
            (
                "meddocan_deid_requests_waiting",
                "Requests waiting for a slot (not admitted yet)",
                lambda: engine.waiting,
            ),
            (
                "meddocan_deid_requests_long_running",
                "Long requests running piece by piece",
                lambda: engine.long_running,
            ),
        ):
            Gauge(name, doc, registry=self.registry).set_function(read)

    def count(self, route: str, texts: int, labels) -> None:
        """`texts` texts served by `route` and their entities' labels (an iterable, or label ->
        count)."""
        self.texts.labels(route).inc(texts)
        counts = labels if isinstance(labels, dict) else entity_counts(labels)
        for label, n in counts.items():
            self.entities.labels(label).inc(n)
