"""The consolidation benchmark's data: a supersession set and a duplicate set, from hand-written material.

Everything here was written for this benchmark (no copied text). ``build()`` lays it out deterministically
(a seeded ``random.Random``) as coding sessions over ~90 days:

- **supersession** (``data/supersession.json``): rules decided in one session (a prompt or decision, as a
  user types it to a coding agent) and amended in a later session of the same repo with different wording
  (sometimes with a cue such as "instead", "from now on", "switch", sometimes only the new value), each
  with the questions an agent would ask later whose answer is the current rule. Near-miss pairs: two
  decisions of one repo about related but different subjects with similar wording, neither of which may
  supersede the other. Most sessions hold neither, only filler (prompts, notes, decisions and tool
  observations about other work in the repo).
- **duplicates** (``data/duplicates.json``): facts restated 5 to 25 times across sessions (as prompts,
  notes and tool observations), with questions about each, and "similar but unrelated" memories that a
  merge must not swallow, each with its own question. A fact is a topic that may make several
  statements; each of its sentences and observations is annotated with the claim (statement) it makes
  (``Fact.claims``, guideline above ``Fact``), and each fact in the JSON maps its restatements to their
  claims, so duplicates can be counted per statement as well as per fact.

Splits: the first half of each repo's rules and near-misses are ``dev`` (thresholds may be tuned on
them), the rest ``heldout``. The duplicate facts in ``FACTS`` are ``dev`` (read while tuning); those in
``FACTS_HELDOUT`` (written before the duplicate-collapse mechanisms were tuned, in repos of their own)
are ``heldout``. Times are fixed ISO-8601 strings (UTC); the harness shifts them all by one
offset so the newest memory is a day old when it runs (recency is relative to now).

    .venv/bin/python benchmarks/consolidation_data.py  # write both JSON files, to read them

The benchmark builds the sets in memory (``build_supersession``, ``build_duplicates``); the JSON files
are only for reading and are not kept in git (ignored).
"""

from __future__ import annotations

import json
import random
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent / "data"
SUPERSESSION_PATH = DATA / "supersession.json"
DUPLICATES_PATH = DATA / "duplicates.json"
NAMESPACE = uuid.UUID("5d0c6f3e-2b1a-4c52-9d47-8a4f1e6b0c21")
START = datetime(2026, 7, 6, 8, 0, tzinfo=UTC)
DAYS = 90
SEED = 20261124


def memory_id(key: str) -> str:
    return str(uuid.uuid5(NAMESPACE, f"bench-consolidation/{key}"))


# --------------------------------------------------------------------------------------------------
# Rules: (repo, subject, (type, decision text), (type, amendment text), questions)
# --------------------------------------------------------------------------------------------------

Said = tuple[str, str]


@dataclass(frozen=True)
class Rule:
    repo: str
    subject: str
    decision: Said
    amendment: Said
    questions: tuple[str, ...]


@dataclass(frozen=True)
class NearMiss:
    repo: str
    subjects: tuple[str, str]
    memories: tuple[Said, Said]
    questions: tuple[str, str]


RULES: tuple[Rule, ...] = (
    # storefront-api: a Python (FastAPI, SQLAlchemy, Postgres) backend
    Rule(
        "storefront-api",
        "Python line length",
        (
            "prompt",
            "set line-length = 88 in pyproject for both black and ruff, I don't want to argue about "
            "wrapping in reviews anymore",
        ),
        (
            "prompt",
            "bump the line length to 110, at 88 our SQLAlchemy queries get wrapped into unreadable "
            "staircases",
        ),
        (
            "What line length do we use for Python code?",
            "How long can a line be before the formatter wraps it?",
        ),
    ),
    Rule(
        "storefront-api",
        "outbound HTTP client library",
        (
            "decision",
            "Outbound calls to partner APIs use requests with one shared Session defined in "
            "app/clients/base.py.",
        ),
        (
            "prompt",
            "let's move the partner clients over to httpx.AsyncClient instead, the handlers are all "
            "async now and requests blocks the event loop",
        ),
        ("Which HTTP client library should the partner API clients use?",),
    ),
    Rule(
        "storefront-api",
        "list endpoint pagination",
        (
            "decision",
            "List endpoints paginate with ?page= and ?per_page=, per_page defaults to 50 and caps at 200.",
        ),
        (
            "prompt",
            "from now on list endpoints do cursor pagination: accept ?cursor= and return next_cursor "
            "in the body. no more page numbers, offsets get slow past page 300",
        ),
        ("How should a new list endpoint paginate its results?",),
    ),
    Rule(
        "storefront-api",
        "error response body format",
        (
            "prompt",
            'errors should go out as {"error": "<message>"} with the right status code, keep it simple',
        ),
        (
            "decision",
            "Switch error bodies to RFC 7807 problem+json (type, title, status, detail); the "
            "mobile team needs a stable type to branch on.",
        ),
        ("What format should an API error response body have?", "How do we return errors from the API?"),
    ),
    Rule(
        "storefront-api",
        "SQLAlchemy pool size for API pods",
        ("decision", "API pods run SQLAlchemy with pool_size=10 and max_overflow=5."),
        (
            "prompt",
            "make it pool_size 20 and max_overflow 0 on the API pods, the overflow connections kept "
            "churning under load",
        ),
        ("What database connection pool size do the API pods use?",),
    ),
    Rule(
        "storefront-api",
        "when integration tests run",
        ("decision", "Every PR needs unit tests. Integration tests are optional on PRs and run nightly."),
        (
            "prompt",
            "integration tests have to run on every PR now, the nightly job let the checkout "
            "regression sit for two days",
        ),
        ("When do the integration tests run?", "Do integration tests need to pass before merging a PR?"),
    ),
    Rule(
        "storefront-api",
        "logging library",
        (
            "prompt",
            "use the stdlib logging module with the JSON formatter in app/logging.py for all new log lines",
        ),
        (
            "decision",
            "We replace stdlib logging with structlog everywhere; the middleware binds request_id "
            "so every line carries it.",
        ),
        ("Which logging library do we use in the API?",),
    ),
    Rule(
        "storefront-api",
        "access token lifetime",
        ("decision", "Access tokens expire after 60 minutes, refresh tokens after 30 days."),
        (
            "prompt",
            "security review: access tokens should only live 15 minutes. refresh tokens stay as they are",
        ),
        ("How long is an access token valid?",),
    ),
    Rule(
        "storefront-api",
        "API versioning scheme",
        ("decision", "Version the public API in the URL path: /v1/products, /v1/orders and so on."),
        (
            "prompt",
            "no more /v2 paths. the version goes in the Accept header, "
            "application/vnd.storefront.v2+json, the router picks the handler from it",
        ),
        ("How do clients select the API version?",),
    ),
    # billing-service: Go
    Rule(
        "billing-service",
        "Go linter in CI",
        ("prompt", "add golint to the CI lint step and fail the build on warnings"),
        (
            "decision",
            "golint is deprecated: CI runs golangci-lint with the default linters plus gosec and errorlint.",
        ),
        ("Which linter runs on the Go code in CI?",),
    ),
    Rule(
        "billing-service",
        "invoice number format",
        (
            "decision",
            "Invoice numbers look like INV-2026-000123: the year, then a 6 digit sequence that "
            "restarts every January.",
        ),
        (
            "prompt",
            "accounting wants invoice numbers without the year: INV- plus an 8 digit zero padded "
            "sequence that never resets",
        ),
        ("What format do invoice numbers have?", "Does the invoice sequence reset every year?"),
    ),
    Rule(
        "billing-service",
        "money representation",
        (
            "prompt",
            "for now just keep amounts as float64 dollars in the ledger structs, we'll clean it up later",
        ),
        (
            "decision",
            "Money is int64 minor units (cents) everywhere in billing; floats only exist at the "
            "JSON boundary and get converted there.",
        ),
        ("How do we represent monetary amounts in billing-service?",),
    ),
    Rule(
        "billing-service",
        "where billing events are published",
        ("decision", "Billing events are published to the RabbitMQ exchange billing.events (topic type)."),
        (
            "prompt",
            "we're dropping RabbitMQ. publish billing events to the Kafka topic billing-events-v1, "
            "keyed by account id",
        ),
        ("Where are billing events published?",),
    ),
    Rule(
        "billing-service",
        "service port",
        ("prompt", "billing-service should listen on 8080, locally and in the cluster"),
        ("prompt", "change the HTTP port of billing-service to 9090, 8080 clashes with the envoy sidecar"),
        ("Which port does billing-service listen on?",),
    ),
    Rule(
        "billing-service",
        "branching model",
        (
            "decision",
            "We follow git flow: feature branches off develop, release branches merge develop into main.",
        ),
        (
            "decision",
            "Trunk-based from today: short-lived branches off main, squash merge, the develop "
            "branch gets deleted.",
        ),
        ("What branch should I base my feature work on?", "What branching model do we use?"),
    ),
    Rule(
        "billing-service",
        "error wrapping",
        ("prompt", "wrap errors with errors.Wrap from pkg/errors so we keep stack traces"),
        (
            "prompt",
            "stop using pkg/errors, it's archived. fmt.Errorf with %w for wrapping, and errors.Is / "
            "errors.As to check",
        ),
        ("How should errors be wrapped in the Go code?",),
    ),
    Rule(
        "billing-service",
        "Stripe API retries",
        ("decision", "Retry Stripe API calls 3 times, only on 5xx responses."),
        (
            "prompt",
            "stripe calls: 5 attempts with jittered backoff, and retry on 429 too, we got rate "
            "limited during the renewal batch",
        ),
        ("How many times do we retry Stripe API calls?", "Which Stripe responses are retried?"),
    ),
    Rule(
        "billing-service",
        "billing database",
        ("decision", "billing-service keeps its data in MySQL 8 (the billing schema on the shared cluster)."),
        (
            "decision",
            "Billing moves to Postgres 15; every new table goes to Postgres, MySQL is read-only "
            "until the migration finishes.",
        ),
        ("Which database does billing-service use?",),
    ),
    # web-dashboard: TypeScript, React
    Rule(
        "web-dashboard",
        "package manager",
        ("prompt", "the dashboard uses yarn v1, please commit yarn.lock and don't mix in npm"),
        ("prompt", "switch the dashboard to pnpm. delete yarn.lock and commit pnpm-lock.yaml"),
        ("Which package manager does the dashboard use?",),
    ),
    Rule(
        "web-dashboard",
        "global state management",
        ("decision", "Global state lives in Redux Toolkit slices under src/store/."),
        (
            "decision",
            "New global state goes in Zustand stores instead of Redux Toolkit; we migrate the old "
            "slices one at a time when we touch them.",
        ),
        ("What should I use for global state in the dashboard?",),
    ),
    Rule(
        "web-dashboard",
        "unit test runner",
        ("prompt", "write the unit tests with jest and testing-library, config is in jest.config.ts"),
        ("prompt", "vitest replaces jest, it reuses the vite config so we drop the babel setup"),
        ("Which test runner do the dashboard unit tests use?",),
    ),
    Rule(
        "web-dashboard",
        "component styling",
        ("decision", "Style components with CSS modules, one Component.module.css next to each component."),
        (
            "decision",
            "New components are styled with Tailwind utility classes; existing CSS modules stay "
            "until someone touches the component.",
        ),
        ("How should I style a new component?",),
    ),
    Rule(
        "web-dashboard",
        "component file naming",
        ("prompt", "name component files in kebab-case, like user-card.tsx"),
        (
            "prompt",
            "component files are PascalCase, UserCard.tsx, same as the component they export. "
            "rename as you go",
        ),
        ("How do we name React component files?",),
    ),
    Rule(
        "web-dashboard",
        "Prettier quotes and semicolons",
        ("decision", "Prettier config: double quotes, semicolons on, trailing commas es5."),
        (
            "prompt",
            "team vote is in: singleQuote true and semi false in .prettierrc, run prettier --write "
            "on the whole repo in one commit",
        ),
        ("What quote style and semicolon setting does Prettier use?",),
    ),
    Rule(
        "web-dashboard",
        "date library",
        ("prompt", "format dates with moment, there's a helper in src/utils/dates.ts"),
        ("decision", "date-fns instead of moment for all date formatting, moment adds 70 kB to the bundle."),
        ("Which library formats dates in the dashboard?",),
    ),
    Rule(
        "web-dashboard",
        "API base URL environment variable",
        ("decision", "The dashboard reads the API base URL from REACT_APP_API_URL."),
        (
            "prompt",
            "after the vite move the variable is VITE_API_BASE_URL, REACT_APP_API_URL isn't read anymore",
        ),
        ("Which environment variable sets the dashboard's API base URL?",),
    ),
    # mobile-app: React Native
    Rule(
        "mobile-app",
        "minimum iOS version",
        ("decision", "The app supports iOS 14 and later."),
        ("prompt", "raise the iOS deployment target to 16, under 1% of sessions are on anything older"),
        ("What is the minimum iOS version the app supports?",),
    ),
    Rule(
        "mobile-app",
        "Android minSdk",
        ("prompt", "keep minSdkVersion at 23 in android/build.gradle"),
        ("decision", "minSdk goes to 26 so we can use java.time without core library desugaring."),
        ("What minSdkVersion does the Android build use?",),
    ),
    Rule(
        "mobile-app",
        "analytics SDK",
        ("decision", "Product analytics events go to Firebase Analytics through src/analytics/track.ts."),
        ("prompt", "analytics goes through Segment from now on. firebase stays only for crashlytics"),
        ("Which analytics SDK do we send product events to?",),
    ),
    Rule(
        "mobile-app",
        "store release cadence",
        ("decision", "We submit a release to both stores every second Thursday."),
        ("prompt", "starting next sprint we ship weekly, submissions go out on Tuesdays"),
        ("How often do we release the app to the stores, and on which day?",),
    ),
    Rule(
        "mobile-app",
        "remote image component",
        ("prompt", "use react-native-fast-image for every remote image, it caches properly"),
        (
            "prompt",
            "fast-image is unmaintained. use expo-image for remote images, it has the cache policy we need",
        ),
        ("Which component should render remote images?",),
    ),
    Rule(
        "mobile-app",
        "navigation setup",
        (
            "decision",
            "Navigation uses react-navigation native stacks; register new screens in "
            "src/navigation/RootStack.tsx.",
        ),
        (
            "decision",
            "We're switching navigation to expo-router: a screen is a file under app/, the route "
            "follows the path.",
        ),
        ("How do I add a new screen to the navigation?",),
    ),
    Rule(
        "mobile-app",
        "feature flag provider",
        ("prompt", "feature flags come from LaunchDarkly, wrap the client in src/flags.ts"),
        ("decision", "Feature flags now come from our self-hosted Unleash; the LaunchDarkly contract ended."),
        ("Which service provides feature flags in the app?",),
    ),
    Rule(
        "mobile-app",
        "network request timeout on mobile",
        ("decision", "API requests from the app time out after 20 seconds."),
        (
            "prompt",
            "cut the network timeout in the api client to 8s and show the retry banner instead of "
            "the spinner",
        ),
        ("What timeout do network requests in the app use?",),
    ),
    # data-pipeline: Airflow, dbt, a warehouse
    Rule(
        "data-pipeline",
        "orders DAG schedule",
        ("decision", "The orders DAG runs hourly at minute 15."),
        ("prompt", "run the orders dag every 30 minutes, finance wants fresher numbers on the dashboard"),
        ("How often does the orders DAG run?",),
    ),
    Rule(
        "data-pipeline",
        "target warehouse",
        ("decision", "The pipeline loads into Redshift, schema analytics."),
        (
            "decision",
            "The load target is Snowflake now, database ANALYTICS and schema CORE; Redshift stays "
            "read-only until it is decommissioned.",
        ),
        ("Which warehouse and schema does the pipeline load into?",),
    ),
    Rule(
        "data-pipeline",
        "dbt staging model names",
        ("prompt", "dbt staging models are named stg_<source>_<table>, e.g. stg_shopify_orders"),
        (
            "prompt",
            "staging models get a double underscore between parts: stg__shopify__orders. rename the "
            "existing ones in one PR",
        ),
        ("How should a dbt staging model be named?",),
    ),
    Rule(
        "data-pipeline",
        "dataframe library",
        ("decision", "Python transformation tasks use pandas."),
        (
            "decision",
            "New transformations are written in Polars, pandas runs out of memory on the events table.",
        ),
        ("Which dataframe library should a new transformation use?",),
    ),
    Rule(
        "data-pipeline",
        "raw event retention",
        ("prompt", "keep raw event files in s3 for 90 days, then the lifecycle rule deletes them"),
        (
            "prompt",
            "change the lifecycle rule on the raw events bucket to 400 days, analytics needs year "
            "over year comparisons",
        ),
        ("How long do we keep raw event files?",),
    ),
    Rule(
        "data-pipeline",
        "Python version on Airflow workers",
        ("decision", "Airflow workers run Python 3.9."),
        ("prompt", "upgrade the airflow worker image to python 3.11, the 3.9 image is end of life soon"),
        ("Which Python version do the Airflow workers run?",),
    ),
    Rule(
        "data-pipeline",
        "DAG failure alerts",
        ("decision", "DAG failures post to the #data-alerts Slack channel."),
        (
            "decision",
            "DAG failure alerts page the PagerDuty service data-oncall instead of Slack; nobody "
            "saw the channel over the weekend.",
        ),
        ("Where do DAG failure alerts go?",),
    ),
    Rule(
        "data-pipeline",
        "SQL keyword case",
        ("prompt", "SQL style: uppercase keywords, 4 space indent, one column per line"),
        ("prompt", "let sqlfluff decide the style, lowercase keywords, rules are in .sqlfluff"),
        ("Should SQL keywords be uppercase or lowercase?",),
    ),
    # infra: Terraform, Kubernetes, CI
    Rule(
        "infra",
        "Terraform state backend",
        (
            "decision",
            "Terraform state lives in the S3 bucket acme-tf-state with the DynamoDB table tf-locks "
            "for locking.",
        ),
        (
            "decision",
            "Terraform state moves to Terraform Cloud workspaces, one per environment; the S3 "
            "backend is frozen.",
        ),
        ("Where is the Terraform state stored?",),
    ),
    Rule(
        "infra",
        "CI provider",
        ("prompt", "all pipelines run on circleci, config in .circleci/config.yml"),
        (
            "prompt",
            "everything runs on github actions now, port the deploy job too and delete the .circleci folder",
        ),
        ("Which CI system runs our pipelines?",),
    ),
    Rule(
        "infra",
        "default container memory limit",
        ("decision", "Default container memory limit is 512Mi, request 256Mi."),
        ("prompt", "raise the default memory limit to 1Gi, half the services got OOMKilled at 512"),
        ("What is the default memory limit for a container?",),
    ),
    Rule(
        "infra",
        "production rollout strategy",
        ("decision", "Deployments use RollingUpdate with maxUnavailable 1 and maxSurge 1."),
        (
            "prompt",
            "production deploys go blue-green through argo rollouts from now on, staging can keep "
            "rolling updates",
        ),
        ("How are production deployments rolled out?",),
    ),
    Rule(
        "infra",
        "primary AWS region",
        ("decision", "The primary region is us-east-1."),
        (
            "decision",
            "eu-west-1 becomes the primary region for GDPR; us-east-1 is the disaster recovery site.",
        ),
        ("Which AWS region is primary?",),
    ),
    Rule(
        "infra",
        "container base image",
        ("prompt", "base all python service images on python:3.11-slim"),
        (
            "prompt",
            "switch the base image to gcr.io/distroless/python3, slim keeps showing up with CVEs in the scan",
        ),
        ("Which base image do Python service containers use?",),
    ),
    Rule(
        "infra",
        "secrets store",
        ("decision", "Secrets are kept in AWS Secrets Manager and mounted with the CSI driver."),
        ("decision", "Secrets move to HashiCorp Vault, injected by the Vault agent sidecar."),
        ("Where are application secrets stored?",),
    ),
    Rule(
        "infra",
        "RDS backup retention",
        ("prompt", "set the RDS automated backup retention to 7 days"),
        ("prompt", "auditors flagged the backups: retention on every RDS instance goes to 35 days"),
        ("How long are RDS automated backups kept?",),
    ),
)

NEAR_MISSES: tuple[NearMiss, ...] = (
    NearMiss(
        "storefront-api",
        ("outbound HTTP timeout", "Postgres statement timeout"),
        (
            ("decision", "Outbound HTTP calls get a 10 second timeout, set once on the shared client."),
            (
                "decision",
                "The Postgres statement_timeout for the API role is 30 seconds, set in a migration.",
            ),
        ),
        (
            "What timeout do outbound HTTP requests use?",
            "What is the Postgres statement timeout for the API?",
        ),
    ),
    NearMiss(
        "storefront-api",
        ("payment webhook retries", "transactional email retries"),
        (
            (
                "prompt",
                "retry failed payment webhooks 5 times with exponential backoff starting at 2 seconds",
            ),
            (
                "prompt",
                "transactional emails retry 3 times, a minute apart, then they go to the dead letter table",
            ),
        ),
        ("How are failed payment webhooks retried?", "How often is a failed transactional email retried?"),
    ),
    NearMiss(
        "storefront-api",
        ("public search rate limit", "admin endpoint rate limit"),
        (
            ("decision", "Rate limit the public search endpoint to 100 requests per minute per IP."),
            ("decision", "Admin endpoints are rate limited to 20 requests per minute per token."),
        ),
        (
            "What is the rate limit on the public search endpoint?",
            "What rate limit applies to admin endpoints?",
        ),
    ),
    NearMiss(
        "billing-service",
        ("Stripe webhook handler timeout", "invoice PDF renderer timeout"),
        (
            (
                "decision",
                "The Stripe webhook handler must answer within 5 seconds; slower work goes to the job queue.",
            ),
            ("decision", "The invoice PDF renderer times out after 45 seconds per document."),
        ),
        ("How fast must the Stripe webhook handler respond?", "When does the invoice PDF renderer time out?"),
    ),
    NearMiss(
        "billing-service",
        ("invoice email sender", "dunning email sender"),
        (
            ("prompt", "invoice emails are sent from billing@acme-shop.com"),
            ("prompt", "dunning reminders are sent from payments@acme-shop.com, not the billing address"),
        ),
        ("Which address sends invoice emails?", "Which address sends the dunning reminders?"),
    ),
    NearMiss(
        "billing-service",
        ("audit log retention", "debug log retention"),
        (
            ("decision", "Billing audit logs are kept for 7 years, it's a legal requirement."),
            ("decision", "Billing debug logs are kept for 14 days in Loki."),
        ),
        ("How long are billing audit logs kept?", "How long do we keep billing debug logs?"),
    ),
    NearMiss(
        "web-dashboard",
        ("success toast duration", "error toast dismissal"),
        (
            ("decision", "Success toasts disappear after 4 seconds."),
            ("decision", "Error toasts stay on screen until the user closes them."),
        ),
        ("How long do success toasts stay on screen?", "When do error toasts go away?"),
    ),
    NearMiss(
        "web-dashboard",
        ("default table page size", "audit log table page size"),
        (
            ("prompt", "data tables default to 25 rows per page"),
            ("prompt", "the audit log table loads 100 rows per page, auditors scroll through a lot"),
        ),
        (
            "How many rows per page does a data table show by default?",
            "How many rows does the audit log table load per page?",
        ),
    ),
    NearMiss(
        "web-dashboard",
        ("button color", "link color"),
        (
            ("decision", "Primary buttons use blue #2563EB."),
            ("decision", "Text links use #1D4ED8 so they don't look like buttons."),
        ),
        ("What color are primary buttons?", "What color are text links?"),
    ),
    NearMiss(
        "mobile-app",
        ("catalog cache lifetime", "avatar cache lifetime"),
        (
            ("decision", "The product catalog is cached on the device for 6 hours."),
            ("decision", "User avatars are cached on the device for 7 days."),
        ),
        ("How long is the product catalog cached on the device?", "How long are avatars cached?"),
    ),
    NearMiss(
        "mobile-app",
        ("Android staged rollout", "iOS phased release"),
        (
            (
                "prompt",
                "android staged rollout starts at 10% and goes to 50% after 48 hours if crash-free "
                "sessions hold",
            ),
            (
                "prompt",
                "on iOS we use apple's automatic 7 day phased release, don't pause it unless crashes spike",
            ),
        ),
        ("How does the Android staged rollout progress?", "How are iOS releases phased?"),
    ),
    NearMiss(
        "mobile-app",
        ("custom URL scheme", "universal links domain"),
        (
            ("decision", "Deep links use the custom scheme acmeshop://."),
            ("decision", "Universal links are served from https://links.acme-shop.com."),
        ),
        ("What URL scheme do deep links use?", "Which domain serves universal links?"),
    ),
    NearMiss(
        "data-pipeline",
        ("events DAG task retries", "Shopify extractor HTTP retries"),
        (
            ("decision", "The events DAG retries a failed task twice, 10 minutes apart."),
            ("decision", "The Shopify extractor retries each HTTP call 5 times with backoff."),
        ),
        (
            "How does the events DAG retry failed tasks?",
            "How many retries does the Shopify extractor make per HTTP call?",
        ),
    ),
    NearMiss(
        "data-pipeline",
        ("events table partitioning", "orders table clustering"),
        (
            ("prompt", "partition the events table by event_date"),
            ("prompt", "cluster the orders table by customer_id"),
        ),
        ("How is the events table partitioned?", "What is the orders table clustered by?"),
    ),
    NearMiss(
        "data-pipeline",
        ("dev warehouse size", "production dbt warehouse size"),
        (
            ("decision", "Dev dbt runs use the X-SMALL warehouse."),
            ("decision", "Production dbt runs use the MEDIUM warehouse."),
        ),
        ("Which warehouse size do dev dbt runs use?", "Which warehouse size do production dbt runs use?"),
    ),
    NearMiss(
        "infra",
        ("production node instance type", "CI runner instance type"),
        (
            ("decision", "The production node pool runs m6i.xlarge instances."),
            ("decision", "The CI runner pool runs c6i.2xlarge spot instances."),
        ),
        ("Which instance type does the production node pool use?", "Which instances do the CI runners use?"),
    ),
    NearMiss(
        "infra",
        ("latency alert", "error rate alert"),
        (
            ("prompt", "alert when API p99 latency is above 800ms for 5 minutes"),
            ("prompt", "alert when the API error rate is above 2% for 5 minutes"),
        ),
        ("When does the latency alert fire?", "What error rate triggers an alert?"),
    ),
    NearMiss(
        "infra",
        ("metrics retention", "log retention"),
        (
            ("decision", "Prometheus keeps metrics for 15 days."),
            ("decision", "Loki keeps application logs for 30 days."),
        ),
        ("How long does Prometheus keep metrics?", "How long are application logs kept in Loki?"),
    ),
)

# --------------------------------------------------------------------------------------------------
# Duplicates: facts restated across sessions, and similar memories that must stay separate
# --------------------------------------------------------------------------------------------------


# Claims: which of a fact's sentences say the same thing. A fact is a topic; its ``stated`` sentences
# and ``observed`` outputs may make several statements under it, and only restatements of one statement
# are duplicates (issue 11: "memories that state the same thing ... become one canonical memory").
# ``claims[i]`` numbers the statement ``stated[i]`` makes, ``observed_claims[j]`` the one ``observed[j]``
# shows (0, 1, ... within the fact). Annotate by meaning alone, as a careful reader of the team's
# conventions would, never by what the system under test does:
#
# - one claim: rewordings, and the same rule said more or less fully: with how it is done (the command,
#   helper, path or URL), a short why, or what enforces it. "we use ruff not flake8", "lint with ruff",
#   "we lint with `ruff check .`, flake8 isn't installed" are one claim.
# - a claim of its own: a sentence whose point is a different rule, value, reason or consequence, which a
#   reader who kept only the other sentence would not know. "never update stock_level directly, go
#   through reserve()" and "reservations expire after 20 minutes if the order isn't paid" are two.
# - when unsure, ask "would keeping only one of these lose something I was told?": yes, two claims; say
#   so in a comment at the fact. Two sentences that each add a different point to a shared rule are two
#   claims; a sentence saying only the shared rule goes with the first of them, a sentence saying two
#   claims in full with the one it states first. A tool output belongs to the claim it shows; one that
#   shows none exactly (a bare test run) is a claim of its own.


@dataclass(frozen=True)
class Fact:
    repo: str
    subject: str
    count: int
    stated: tuple[str, ...]  # how a user says it (prompts and notes)
    observed: tuple[str, ...]  # tool observations that show it
    questions: tuple[str, ...]
    claims: tuple[int, ...] = ()  # per ``stated`` sentence: the claim it makes (empty: not annotated)
    observed_claims: tuple[int, ...] = ()  # per ``observed`` output: the claim it shows


@dataclass(frozen=True)
class Similar:
    repo: str
    fact: str  # the subject of the fact it resembles
    memory: Said
    question: str


FACTS: tuple[Fact, ...] = (
    Fact(
        "platform-api",
        "linter: ruff, not flake8",
        18,
        (
            "remember, we use ruff not flake8",
            "lint with ruff",
            "don't add a flake8 config, ruff does the linting here",
            "run ruff check before you push, we dropped flake8",
            "ruff is our linter. not flake8, not pylint",
            "linting is ruff only, flake8 was removed last year",
            "please use ruff for lint, there is no flake8 in this repo",
            "we lint with `ruff check .`, flake8 isn't installed",
            "no flake8 noqa comments please, ruff is the linter",
        ),
        (
            "Read CONTRIBUTING.md\n## Linting\nWe lint with ruff (`ruff check .`). flake8 is not used.",
            "Bash: make lint\nruff check app tests\nAll checks passed!",
            "Bash: flake8 app\nbash: flake8: command not found\n(the Makefile's lint target runs ruff check)",
            "Read Makefile\nlint:\n\truff check app tests",
            "Read .pre-commit-config.yaml\n- repo: https://github.com/astral-sh/ruff-pre-commit\n  hooks:\n"
            "  - id: ruff",
        ),
        ("Which linter does platform-api use?", "Should I add a flake8 config?"),
        # 'before you push' (3) and 'no flake8 noqa comments' (8) follow from the rule: one claim
        claims=(0, 0, 0, 0, 0, 0, 0, 0, 0),
        observed_claims=(0, 0, 0, 0, 0),
    ),
    Fact(
        "platform-api",
        "tests run in parallel with pytest -n auto",
        12,
        (
            "run the tests with pytest -n auto, serially they take forever",
            "tests: `make test`, which is pytest -n auto under the hood",
            "use xdist when you run the suite, -n auto",
            "as usual run pytest with -n auto",
            "the full test suite runs in parallel, pytest -n auto",
            "reminder: pytest -n auto, not plain pytest",
        ),
        (
            "Bash: make test\npytest -n auto\n8 workers [1240 items]\n1240 passed in 41.8s",
            "Read Makefile\ntest:\n\tpytest -n auto",
            "Bash: pytest -n auto tests/\ncreated: 2/2 workers\n1236 passed, 4 skipped in 63.1s",
        ),
        ("How do I run the test suite?",),
        # `make test` (1) is the same command under another name
        claims=(0, 0, 0, 0, 0, 0),
        observed_claims=(0, 0, 0),
    ),
    Fact(
        "platform-api",
        "timestamps stored in UTC",
        8,
        (
            "store every timestamp in UTC, convert only in the frontend",
            "timestamps go into the DB as UTC, always timezone-aware",
            "remember: datetimes are UTC in storage, never local time",
            "use datetime.now(UTC), we keep everything in UTC",
            "all timestamps are UTC in the database, the UI does the conversion",
        ),
        ("Read app/models/base.py\ncreated_at = Column(DateTime(timezone=True), default=utcnow)  # UTC",),
        ("Which timezone are timestamps stored in?",),
        # 0: UTC in storage, converted only in the UI (0, 4); 1: stored timezone-aware (1, 3: now(UTC)), each
        # says what the other does not; 2 says only UTC in storage (both say it): the first claim
        claims=(0, 1, 0, 1, 0),
        observed_claims=(1,),
    ),
    Fact(
        "platform-api",
        "alembic migrations: one per PR, never edit merged ones",
        6,
        (
            "one alembic migration per PR, and never edit a migration that's already merged",
            "don't touch merged migrations, add a new alembic revision",
            "schema changes go through alembic, a single revision per pull request",
            "again: merged alembic migrations are immutable, write a new one",
        ),
        ("Read docs/migrations.md\nEach PR adds at most one alembic revision. Never edit merged ones.",),
        ("How do we handle database schema migrations?", "Can I edit an existing migration?"),
        # 0: one revision per PR; 1: never edit a merged one; 0 says both (its first: one per PR), so does the
        # observation
        claims=(0, 1, 0, 1),
        observed_claims=(0,),
    ),
    Fact(
        "platform-api",
        "secrets come from Doppler, never a committed .env",
        6,
        (
            "never commit a .env, secrets come from doppler",
            "get the secrets with doppler run, don't put them in .env files",
            "secrets live in doppler. a .env in git would fail the pre-commit hook anyway",
            "reminder that we don't keep secrets in the repo, doppler injects them",
        ),
        ("Bash: doppler run -- make dev\nInjected 23 secrets from project platform-api (config dev)",),
        ("Where do local secrets come from?",),
        claims=(0, 0, 0, 0),
        observed_claims=(0,),
    ),
    Fact(
        "checkout-web",
        "package manager: pnpm, not npm",
        25,
        (
            "use pnpm, not npm",
            "remember this repo is pnpm only",
            "install deps with pnpm install please, npm messes up the lockfile",
            "it's pnpm here, don't run npm install",
            "pnpm add, not npm i",
            "we use pnpm for everything in checkout-web",
            "please stick to pnpm, the lockfile is pnpm-lock.yaml",
            "again, pnpm. a package-lock.json should never show up",
            "don't use npm or yarn, pnpm is the package manager",
            "use pnpm for scripts too: pnpm test, pnpm build",
        ),
        (
            "Bash: pnpm install\nLockfile is up to date, resolution step is skipped\nDone in 4.2s",
            'Read package.json\n"packageManager": "pnpm@9.12.0"',
            "Bash: npm install\nnpm error This project is configured to use pnpm",
            "Bash: pnpm test\nTest Files  88 passed (88)\nTests  612 passed (612)",
            "Read README.md\n## Setup\nInstall with `pnpm install` (npm and yarn are not supported).",
        ),
        ("Which package manager does checkout-web use?", "How do I install the dependencies?"),
        # the lockfile, the scripts and 'npm messes up the lockfile' are the pnpm rule said more fully
        claims=(0, 0, 0, 0, 0, 0, 0, 0, 0, 0),
        observed_claims=(0, 0, 0, 0, 0),
    ),
    Fact(
        "checkout-web",
        "conventional commit messages",
        10,
        (
            "commit messages follow conventional commits: feat:, fix:, chore:",
            "use a conventional commit message, like fix(cart): ...",
            "remember the commit format, feat/fix/chore prefixes",
            "conventional commits please, commitlint will reject anything else",
            "write the commit as conventional commits, scope is the folder name",
            "prefix the commit message with feat: or fix:, we use conventional commits",
        ),
        (
            'Bash: git commit -m "update cart"\n⧗ input: update cart\n✖ subject may not be empty '
            "[subject-empty]\n✖ type may not be empty [type-empty] (commitlint, conventional config)",
            "Read commitlint.config.js\nmodule.exports = { extends: ['@commitlint/config-conventional'] }",
        ),
        ("How should commit messages be written?",),
        # unsure: 'scope is the folder name' (4) is a rule of its own, but said with the rule it refines;
        # keeping 4 loses nothing: one claim
        claims=(0, 0, 0, 0, 0, 0),
        observed_claims=(0, 0),
    ),
    Fact(
        "checkout-web",
        "named exports only",
        7,
        (
            "named exports only, no export default",
            "please don't use default exports",
            "export the component by name, we don't do default exports",
            "remember: no default exports in this codebase",
            "use named exports, the lint rule import/no-default-export is on",
        ),
        ("Read .eslintrc.cjs\nrules: { 'import/no-default-export': 'error' }",),
        ("Should modules use default or named exports?",),
        claims=(0, 0, 0, 0, 0),
        observed_claims=(0,),
    ),
    Fact(
        "checkout-web",
        "API calls go through src/api/client.ts",
        14,
        (
            "all API calls go through src/api/client.ts, never call fetch directly",
            "use the api client in src/api/client.ts, it adds auth and retries",
            "don't sprinkle fetch() around, go through our api client",
            "remember to use apiClient from src/api/client.ts for backend calls",
            "backend requests only via src/api/client.ts",
            "no raw fetch in components, use the shared api client",
            "the api client handles the auth header, so always call the backend through it",
        ),
        (
            "Read src/api/client.ts\nexport const apiClient = createClient({ baseUrl, auth: tokenProvider, "
            "retries: 2 })",
            "Grep 'fetch(' src/components\n0 matches (components call apiClient)",
            "Read docs/frontend.md\nNever call fetch directly; use apiClient from src/api/client.ts.",
        ),
        ("How should a component call the backend API?",),
        # 'it adds auth and retries' (1, 6) is why the rule holds, said with it
        claims=(0, 0, 0, 0, 0, 0, 0),
        observed_claims=(0, 0, 0),
    ),
    Fact(
        "ml-platform",
        "experiments are logged to MLflow",
        9,
        (
            "log every experiment to mlflow at https://mlflow.internal",
            "track runs in mlflow, not in spreadsheets",
            "remember to log params and metrics to our mlflow server",
            "every training run gets an mlflow run, tracking uri is mlflow.internal",
            "experiments go to mlflow, use mlflow.autolog() in the training script",
        ),
        (
            "Bash: python train.py --config configs/base.yaml\nMLflow run 4f2c... logged to "
            "https://mlflow.internal/#/experiments/12",
            "Read train.py\nmlflow.set_tracking_uri('https://mlflow.internal')",
        ),
        ("Where are experiments tracked?",),
        # the tracking URL (0, 3) says where; 1: use mlflow.autolog() (4) is an instruction of its own
        # (unsure: keeping 0 alone would lose it)
        claims=(0, 0, 0, 0, 1),
        observed_claims=(0, 0),
    ),
    Fact(
        "ml-platform",
        "GPU jobs go to the a100 Slurm queue, never the login node",
        5,
        (
            "training goes to the a100 partition on slurm, never run it on the login node",
            "submit gpu jobs with sbatch -p a100, the login node has no gpu",
            "don't train on the login node, use the a100 queue",
            "remember gpu work is sbatch --partition=a100",
        ),
        ("Bash: sbatch -p a100 scripts/train.sbatch\nSubmitted batch job 882134",),
        ("Where should training jobs run?",),
        claims=(0, 0, 0, 0),
        observed_claims=(0,),
    ),
    Fact(
        "ml-platform",
        "seed everything with 42",
        11,
        (
            "seed everything with 42 so runs are comparable",
            "call seed_everything(42) at the start of every script",
            "use seed 42, we compare runs across people",
            "remember the seed is 42 for torch, numpy and random",
            "set the global seed to 42 before building the dataloaders",
            "runs must be reproducible: seed_everything(42)",
        ),
        (
            "Read src/utils/repro.py\ndef seed_everything(seed: int = 42) -> None:",
            "Bash: python train.py\nGlobal seed set to 42",
        ),
        ("What random seed do we use?",),
        # 'before building the dataloaders' (4) is 'at the start of every script' (1) said otherwise
        claims=(0, 0, 0, 0, 0, 0),
        observed_claims=(0, 0),
    ),
    Fact(
        "ml-platform",
        "type hints required, mypy --strict",
        16,
        (
            "everything needs type hints, mypy --strict has to pass",
            "run mypy --strict before pushing",
            "remember we type-check with mypy in strict mode",
            "add type annotations, CI runs mypy --strict",
            "no untyped functions, mypy is strict here",
            "please make mypy --strict happy, no Any leaking out",
            "mypy strict mode is enforced on src/",
            "type hints on all public functions, mypy --strict in CI",
        ),
        (
            "Bash: mypy --strict src\nSuccess: no issues found in 143 source files",
            "Read pyproject.toml\n[tool.mypy]\nstrict = true",
            "Bash: mypy --strict src\nsrc/data/loader.py:41: error: Function is missing a return type "
            "annotation  [no-untyped-def]\nFound 1 error in 1 file",
        ),
        ("How strict is type checking in ml-platform?", "Do functions need type hints?"),
        # unsure: 'no Any leaking out' (5) is what strict mode asks; one claim
        claims=(0, 0, 0, 0, 0, 0, 0, 0),
        observed_claims=(0, 0, 0),
    ),
)

SIMILAR: tuple[Similar, ...] = (
    Similar(
        "platform-api",
        "linter: ruff, not flake8",
        (
            "note",
            'ruff\'s isort settings: known-first-party = ["platform"] and force-sort-within-sections, '
            "so imports sort by module path",
        ),
        "How is import sorting configured?",
    ),
    Similar(
        "platform-api",
        "tests run in parallel with pytest -n auto",
        (
            "decision",
            "Flaky tests get @pytest.mark.flaky(reruns=2) plus a link to the ticket that tracks them.",
        ),
        "How do we mark a flaky test?",
    ),
    Similar(
        "platform-api",
        "timestamps stored in UTC",
        (
            "decision",
            "The reporting export writes timestamps in the customer's local timezone because the "
            "PDFs are read by their accountants.",
        ),
        "Which timezone does the reporting export use?",
    ),
    Similar(
        "platform-api",
        "alembic migrations: one per PR, never edit merged ones",
        (
            "note",
            "data backfills are not alembic migrations, they are one-off scripts in scripts/backfills/ "
            "run by hand",
        ),
        "Where do data backfill scripts go?",
    ),
    Similar(
        "checkout-web",
        "package manager: pnpm, not npm",
        ("decision", "The Docker build runs npm ci because the node base image has no pnpm; leave it."),
        "Which install command does the Docker build use?",
    ),
    Similar(
        "checkout-web",
        "conventional commit messages",
        (
            "note",
            "release notes are generated from PR titles by release-drafter, label the PR so it lands "
            "in the right section",
        ),
        "How are release notes generated?",
    ),
    Similar(
        "checkout-web",
        "named exports only",
        (
            "decision",
            "Next.js page and layout files need a default export; that's the only exception to the "
            "exports rule.",
        ),
        "Which files need a default export?",
    ),
    Similar(
        "checkout-web",
        "API calls go through src/api/client.ts",
        (
            "note",
            "the analytics snippet calls Segment with fetch directly because it loads before the app bundle",
        ),
        "Why does the analytics snippet call fetch directly?",
    ),
    Similar(
        "ml-platform",
        "experiments are logged to MLflow",
        (
            "decision",
            "Model artifacts over 2 GB go to the s3://ml-artifacts bucket, not MLflow's artifact store.",
        ),
        "Where do large model artifacts get stored?",
    ),
    Similar(
        "ml-platform",
        "GPU jobs go to the a100 Slurm queue, never the login node",
        ("prompt", "inference benchmarks run on the t4 partition, the a100s are for training"),
        "Which Slurm partition do inference benchmarks use?",
    ),
    Similar(
        "ml-platform",
        "seed everything with 42",
        (
            "note",
            "dataset split seeds are fixed per dataset in configs/splits.yaml, separate from the training "
            "seed",
        ),
        "Where are the dataset split seeds defined?",
    ),
    Similar(
        "ml-platform",
        "type hints required, mypy --strict",
        ("decision", "Notebooks under notebooks/ are excluded from type checking."),
        "Are notebooks type-checked?",
    ),
)

# --------------------------------------------------------------------------------------------------
# Held-out duplicates: written on 2026-11-24 before any tuning of the duplicate-collapse mechanisms,
# in repos of their own (the dev facts above were read while tuning); never tune on these.
# --------------------------------------------------------------------------------------------------

FACTS_HELDOUT: tuple[Fact, ...] = (
    Fact(
        "search-service",
        "errors wrapped with fmt.Errorf and %w",
        14,
        (
            "wrap errors with fmt.Errorf and %w so callers can errors.Is them",
            "don't return bare errors from the store layer, wrap them with context using %w",
            "use %w, not %v, when you wrap an error",
            'every returned error gets wrapped: fmt.Errorf("loading index: %w", err)',
            "we never swallow errors, wrap and return them with %w",
            "remember errors.Is only works if you wrapped with %w",
        ),
        (
            'Read internal/index/store.go\nreturn fmt.Errorf("open segment %s: %w", name, err)',
            "Bash: golangci-lint run\ninternal/query/parse.go:88:10: non-wrapping format verb for "
            "fmt.Errorf. Use `%w` to format errors (errorlint)",
            "Read .golangci.yml\nlinters:\n  enable:\n    - errorlint\n    - wrapcheck",
        ),
        ("How should errors be returned in search-service?", "Should I use %v or %w in fmt.Errorf?"),
        # unsure: 'we never swallow errors' (4) comes with the same wrap-and-return rule; one claim
        claims=(0, 0, 0, 0, 0, 0),
        observed_claims=(0, 0, 0),
    ),
    Fact(
        "search-service",
        "logging with log/slog, JSON handler",
        9,
        (
            "log with log/slog, not the old log package or logrus",
            "use slog with the JSON handler, the log pipeline parses JSON",
            "structured logging only: slog.Info with key-value pairs",
            "please don't add logrus back, we moved everything to slog",
            "logs go through slog, pass the request's logger down instead of a global",
        ),
        (
            "Read cmd/search/main.go\nlogger := slog.New(slog.NewJSONHandler(os.Stdout, nil))",
            'Bash: go run ./cmd/search\n{"time":"2026-10-02T09:14:03Z","level":"INFO",'
            '"msg":"listening","addr":":8080"}',
        ),
        ("Which logging library does search-service use?",),
        # 0: slog with the JSON handler (0, 3 say only slog); 1: key-value pairs, not formatted strings; 2:
        # pass the request's logger down
        claims=(0, 0, 1, 0, 2),
        observed_claims=(0, 0),
    ),
    Fact(
        "search-service",
        "integration tests need the build tag integration",
        6,
        (
            "integration tests carry the build tag `integration`, run them with go test -tags integration",
            "put //go:build integration at the top of any test that needs a real OpenSearch",
            "plain go test skips the integration tests, add -tags integration to run them",
            "tests that talk to the cluster go behind the integration build tag",
        ),
        ("Bash: go test -tags integration ./internal/index/...\nok  \tsearch/internal/index\t14.212s",),
        ("How do I run the integration tests?",),
        # 'plain go test skips them' (2) is what a build tag does
        claims=(0, 0, 0, 0),
        observed_claims=(0,),
    ),
    Fact(
        "admin-portal",
        "forms built with react-hook-form and zod",
        16,
        (
            "build forms with react-hook-form and a zod schema",
            "validation goes in a zod schema, hooked up through zodResolver",
            "no hand-rolled form state, use react-hook-form",
            "every form: useForm with zodResolver(schema)",
            "we validate with zod, don't write validation by hand in onChange",
            "forms use react-hook-form, formik was removed",
            "keep the zod schema next to the form component and infer the type from it",
        ),
        (
            "Read src/pages/Settings.tsx\nconst form = useForm<SettingsInput>({ resolver: "
            "zodResolver(settingsSchema) })",
            'Read package.json\n"react-hook-form": "^7.53.0",\n"zod": "^3.23.8",\n'
            '"@hookform/resolvers": "^3.9.0"',
            "Grep 'formik': 0 matches",
            "Read docs/frontend/forms.md\nForms use react-hook-form with a zod schema (zodResolver). "
            "No formik.",
        ),
        ("How should a new form be built in admin-portal?", "Which validation library do forms use?"),
        # 0: react-hook-form with a zod schema (2, 5 say the form half, 1, 4 the zod half; 0 and 3 say both);
        # 1: the schema sits next to the form and the type is inferred from it
        claims=(0, 0, 0, 0, 0, 0, 1),
        observed_claims=(0, 0, 0, 0),
    ),
    Fact(
        "admin-portal",
        "server state through TanStack Query, not useEffect fetching",
        11,
        (
            "fetch server data with TanStack Query, not useEffect + useState",
            "use react-query hooks for anything that comes from the API",
            "don't fetch in a useEffect, write a useQuery hook in src/queries/",
            "mutations go through useMutation and invalidate the query keys they touch",
            "remember query keys are built with the helpers in src/queries/keys.ts",
        ),
        (
            "Read src/queries/orders.ts\nexport const useOrders = (filters) => useQuery({ queryKey: "
            "keys.orders(filters), queryFn: () => api.orders.list(filters) })",
            "Read src/main.tsx\n<QueryClientProvider client={queryClient}>",
        ),
        ("How do components load data from the API?",),
        # 0: server data through useQuery hooks in src/queries/; 1: mutations invalidate their keys; 2: key
        # helpers in keys.ts (the first observation shows 0 and 2: its first)
        claims=(0, 0, 0, 1, 2),
        observed_claims=(0, 0),
    ),
    Fact(
        "admin-portal",
        "Storybook story for every shared component",
        7,
        (
            "every component in src/components needs a storybook story",
            "add a .stories.tsx next to the component when you create one",
            "no new shared component without a story, the visual tests run on storybook",
            "remember to write the Storybook story for new components",
        ),
        ("Bash: pnpm test-storybook\nTest Suites: 64 passed, 64 total",),
        ("What do I need to add along with a new shared component?",),
        # 'next to the component' (1) says where the story goes: the same rule more fully
        claims=(0, 0, 0, 0),
        observed_claims=(0,),
    ),
    Fact(
        "analytics-jobs",
        "SQL style: sqlfluff, lowercase keywords",
        12,
        (
            "run sqlfluff lint on the models before you commit",
            "sql keywords lowercase, sqlfluff enforces it",
            "format the sql with sqlfluff fix, we use the dbt templater",
            "lowercase sql everywhere please, sqlfluff will complain otherwise",
            "sqlfluff is the sql linter, config in .sqlfluff at the root",
            "trailing commas and lowercase keywords, that's our sql style (sqlfluff)",
        ),
        (
            "Bash: sqlfluff lint models/\nL:  12 | P:   1 | CP01 | Keywords must be lower case.",
            "Read .sqlfluff\n[sqlfluff]\ntemplater = dbt\ndialect = snowflake\n"
            "[sqlfluff:rules:capitalisation.keywords]\ncapitalisation_policy = lower",
            "Bash: sqlfluff fix models/marts/fct_orders.sql\n==== finding fixable violations ====\n"
            "FORCE MODE: Attempting fixes...",
        ),
        ("How is SQL formatted and linted in analytics-jobs?",),
        # 0: sqlfluff is the linter, config in .sqlfluff; 1: lowercase keywords (5 adds trailing commas); 2:
        # format with sqlfluff fix (dbt templater); the .sqlfluff file shows 0 (and the values of 1 and 2)
        claims=(0, 1, 2, 1, 0, 1),
        observed_claims=(1, 0, 2),
    ),
    Fact(
        "analytics-jobs",
        "every model has unique and not_null tests on its key",
        9,
        (
            "each dbt model needs unique and not_null tests on its primary key",
            "add the unique + not_null tests in the schema.yml when you add a model",
            "no model gets merged without tests on its key column",
            "remember the key tests: unique and not_null, in the model's yml",
            "primary keys are always tested for uniqueness and nulls",
        ),
        (
            "Read models/marts/schema.yml\n- name: order_id\n  tests:\n    - unique\n    - not_null",
            "Bash: dbt test --select fct_orders\nPASS unique_fct_orders_order_id\n"
            "PASS not_null_fct_orders_order_id",
        ),
        ("Which tests does a new dbt model need?",),
        # 'in the model's yml' (1, 3) is where dbt tests are always declared
        claims=(0, 0, 0, 0, 0),
        observed_claims=(0, 0),
    ),
    Fact(
        "analytics-jobs",
        "backfills run with --full-refresh only in the maintenance window",
        5,
        (
            "full refreshes only in the sunday maintenance window, they lock the warehouse",
            "don't run dbt --full-refresh on prod during the week",
            "backfills with --full-refresh wait for the weekend window",
            "a full-refresh on prod is a sunday job, ask in #data before",
        ),
        (
            "Read docs/runbook.md\nFull refreshes (dbt run --full-refresh) run only in the Sunday "
            "02:00-06:00 window.",
        ),
        ("When can I run a full refresh on production?",),
        # 0: only in the Sunday window (0 gives why: they lock the warehouse); 1: ask in #data first (unsure
        # whether 0's reason makes it a claim apart from 3's; kept apart)
        claims=(0, 0, 0, 1),
        observed_claims=(0,),
    ),
)

SIMILAR_HELDOUT: tuple[Similar, ...] = (
    Similar(
        "search-service",
        "errors wrapped with fmt.Errorf and %w",
        (
            "decision",
            "HTTP handlers map domain errors to status codes in internal/api/errors.go; a 500 "
            "never shows the error text to the client.",
        ),
        "How do handlers turn errors into HTTP responses?",
    ),
    Similar(
        "search-service",
        "logging with log/slog, JSON handler",
        ("note", "metrics are Prometheus histograms named search_* and registered in internal/metrics"),
        "Where are metrics registered?",
    ),
    Similar(
        "admin-portal",
        "forms built with react-hook-form and zod",
        (
            "decision",
            "The API response types are generated from the OpenAPI spec with openapi-typescript; "
            "don't write them by hand.",
        ),
        "Where do the API response types come from?",
    ),
    Similar(
        "admin-portal",
        "server state through TanStack Query, not useEffect fetching",
        ("note", "UI state that several pages share (sidebar open, theme) lives in a small zustand store"),
        "Where does shared UI state live?",
    ),
    Similar(
        "analytics-jobs",
        "SQL style: sqlfluff, lowercase keywords",
        (
            "decision",
            "Python extract scripts are formatted with ruff format; the SQL rules don't apply to them.",
        ),
        "How are the Python extract scripts formatted?",
    ),
    Similar(
        "analytics-jobs",
        "every model has unique and not_null tests on its key",
        ("note", "source freshness is checked by dbt source freshness every hour, warn after 6h"),
        "How is source freshness monitored?",
    ),
)

# Written on 2026-11-24 (session 20) before the duplicate collapse was tuned again, in repos of their own;
# the first held-out set (``FACTS_HELDOUT``) had been looked at by then, so it is now tuned on.
FACTS_HELDOUT2: tuple[Fact, ...] = (
    Fact(
        "payments-gateway",
        "money amounts as int64 minor units, never float64",
        15,
        (
            "amounts are int64 cents, never float64",
            "store money in minor units as an int64, floats lose pennies",
            "don't use float64 for any amount, use the Amount type which wraps int64 minor units",
            "every price field is an integer number of cents",
            "no floating point for currency math, ever",
            "convert to minor units at the API edge and keep int64 everywhere inside",
        ),
        (
            "Read internal/money/amount.go\ntype Amount struct {\n\tMinor    int64\n\tCurrency string\n}",
            "Grep 'float64' in internal/ledger: 0 matches",
            "Read docs/adr/0004-money.md\nAll monetary values are int64 minor units with an ISO 4217 "
            "currency code.",
        ),
        ("How are money amounts represented in payments-gateway?", "Can I use float64 for a price?"),
        # 0: int64 minor units, no floats (the Amount type, 2, is how); 1: convert at the API edge and keep
        # int64 inside
        claims=(0, 0, 0, 0, 0, 1),
        observed_claims=(0, 0, 0),
    ),
    Fact(
        "payments-gateway",
        "an Idempotency-Key header on every POST",
        10,
        (
            "every POST endpoint must take an Idempotency-Key header",
            "reject a create request that has no idempotency key with a 400",
            "a retried POST with the same Idempotency-Key returns the first response, it never charges twice",
            "remember to put the idempotency middleware on new POST routes",
            "no POST without an idempotency key, clients retry on timeouts",
        ),
        (
            "Read internal/api/middleware/idempotency.go\nfunc RequireIdempotencyKey(next http.Handler) "
            "http.Handler {",
            'Bash: curl -s -X POST localhost:8080/v1/charges\n{"error":"missing Idempotency-Key header"}',
        ),
        ("What must every POST request carry so a retry does not charge twice?",),
        # 0: POSTs need the key (the middleware, 3, is how); 1: a missing key is a 400; 2: a retry returns the
        # first response
        claims=(0, 1, 2, 0, 0),
        observed_claims=(0, 1),
    ),
    Fact(
        "payments-gateway",
        "database queries generated with sqlc",
        7,
        (
            "write the SQL in queries/*.sql and generate the Go code with sqlc",
            "no ORM here, we use sqlc",
            "don't hand-write database/sql scanning code, add a query and run sqlc generate",
            "the db layer is generated by sqlc, edit the .sql file and not the generated Go",
        ),
        (
            "Bash: sqlc generate\n(no output)",
            'Read sqlc.yaml\nversion: "2"\nsql:\n  - engine: postgresql\n    queries: queries/',
        ),
        ("How do I add a new database query in payments-gateway?",),
        # queries/*.sql (0) and 'not the generated Go' (3) say how sqlc is used
        claims=(0, 0, 0, 0),
        observed_claims=(0, 0),
    ),
    Fact(
        "docs-site",
        "pages are MDX files under content/",
        12,
        (
            "docs pages are MDX files under content/",
            "put a new guide in content/guides/ as an .mdx file",
            "every section of the site is a folder in content/ with its own index.mdx",
            "write the pages in MDX so they can embed the live code examples",
            "don't add pages under src/pages, the content lives in content/",
        ),
        (
            "Read content/guides/getting-started.mdx\n---\ntitle: Getting started\n---",
            "Bash: ls content\napi  guides  reference  index.mdx",
            "Read contentlayer.config.ts\ncontentDirPath: 'content'",
        ),
        ("Where do new documentation pages go?", "What format are the docs pages written in?"),
        # 0: pages are MDX under content/ (content/guides/, 1, is where a guide goes; 3 says why MDX); 1: a
        # section is a folder with its own index.mdx
        claims=(0, 0, 1, 0, 0),
        observed_claims=(0, 1, 0),
    ),
    Fact(
        "docs-site",
        "broken links fail CI (lychee)",
        6,
        (
            "CI runs lychee on every PR and a broken link fails the build",
            "check the links locally with npm run check:links before you push",
            "external links must be https, the link checker rejects plain http",
            "the link checker runs on every pull request",
        ),
        ("Bash: npm run check:links\n[404] https://example.com/old-page | content/api/auth.mdx",),
        ("How are broken links caught?",),
        # 0: CI's link check fails a PR; 1: check locally with npm run check:links; 2: https only
        claims=(0, 1, 2, 0),
        observed_claims=(1,),
    ),
    Fact(
        "docs-site",
        "screenshots as WebP in public/img, with alt text",
        9,
        (
            "screenshots go in public/img as WebP",
            "every image needs alt text, the accessibility check fails without it",
            "convert PNG screenshots to webp before committing them",
            "images live under public/img/<section>/",
            "no image without an alt attribute",
        ),
        (
            "Bash: npx eslint content\ncontent/guides/deploy.mdx:14:1 jsx-a11y/alt-text img elements "
            "must have an alt prop",
            "Bash: ls public/img/guides\ndeploy-1.webp  deploy-2.webp  overview.webp",
        ),
        ("Where do screenshots go, and in which format?",),
        # 0: screenshots as WebP in public/img (2: convert PNGs; 3: a folder per section, the path more
        # precisely; unsure, kept one); 1: alt text on every image
        claims=(0, 1, 0, 0, 1),
        observed_claims=(1, 0),
    ),
    Fact(
        "feature-store",
        "features defined as Feast feature views in feature_repo/",
        20,
        (
            "define new features as Feast feature views in feature_repo/",
            "every feature goes through Feast, no ad-hoc feature tables",
            "after changing a feature view, run feast apply",
            "feature definitions live in feature_repo/, one file per entity",
            "we use Feast for both the offline and the online features",
            "don't query the online store directly, go through the Feast SDK",
        ),
        (
            'Read feature_repo/customer.py\ncustomer_stats = FeatureView(name="customer_stats", '
            "entities=[customer],",
            "Bash: feast apply\nRegistered feature view customer_stats",
            "Read feature_repo/feature_store.yaml\nproject: features\nregistry: gs://ml-feast/registry.db",
        ),
        ("How do I add a new feature to the feature store?", "Which tool manages the feature definitions?"),
        # 0: features are Feast feature views in feature_repo/ (4, offline and online, unsure: one claim); 1:
        # run feast apply after a change; 2: one file per entity; 3: read the online store through the Feast
        # SDK
        claims=(0, 0, 1, 2, 0, 3),
        observed_claims=(0, 1, 0),
    ),
    Fact(
        "feature-store",
        "training data by point-in-time joins",
        8,
        (
            "training sets must use point-in-time joins, no leakage from the future",
            "build training data with get_historical_features so the join is point-in-time correct",
            "never join labels to the latest feature values, join as of the event timestamp",
            "every training query needs an event_timestamp column for the point-in-time join",
        ),
        (
            "Read pipelines/train_set.py\ntraining_df = store.get_historical_features(entity_df=events, "
            "features=FEATURES).to_df()",
        ),
        ("How should training data be joined with the features?",),
        # 0: point-in-time joins (1: get_historical_features is how); 1: every training query has an
        # event_timestamp column
        claims=(0, 0, 0, 1),
        observed_claims=(0,),
    ),
    Fact(
        "feature-store",
        "the online store is Redis",
        5,
        (
            "the online store is Redis",
            "online features are served from Redis, not from the warehouse",
            "serving reads features from the Redis online store",
        ),
        (
            "Read feature_repo/feature_store.yaml\nonline_store:\n  type: redis\n  connection_string: "
            "redis-features:6379",
        ),
        ("Which online store serves the features?",),
        claims=(0, 0, 0),
        observed_claims=(0,),
    ),
)

SIMILAR_HELDOUT2: tuple[Similar, ...] = (
    Similar(
        "payments-gateway",
        "money amounts as int64 minor units, never float64",
        (
            "decision",
            "A refund may never exceed the captured amount of the original charge; partial refunds are fine.",
        ),
        "Can a refund be larger than the charge?",
    ),
    Similar(
        "payments-gateway",
        "an Idempotency-Key header on every POST",
        (
            "decision",
            "Calls to the card processor are retried at most twice, with exponential backoff from 200 ms.",
        ),
        "How often are calls to the card processor retried?",
    ),
    Similar(
        "docs-site",
        "pages are MDX files under content/",
        ("decision", "Blog posts live in their own repository and are not part of the docs site."),
        "Where do blog posts live?",
    ),
    Similar(
        "docs-site",
        "screenshots as WebP in public/img, with alt text",
        (
            "note",
            "the favicons and the social preview image are generated by npm run build:icons from logo.svg",
        ),
        "How are the favicons generated?",
    ),
    Similar(
        "feature-store",
        "features defined as Feast feature views in feature_repo/",
        ("decision", "Trained models are registered in MLflow with the git sha of the training code."),
        "Where are trained models registered?",
    ),
    Similar(
        "feature-store",
        "training data by point-in-time joins",
        ("note", "the evaluation set is a random 10% of customers held out by customer id"),
        "How is the evaluation set chosen?",
    ),
)

# Written in session 21 before any change of that session, and never looked at while tuning.
FACTS_HELDOUT3: tuple[Fact, ...] = (
    Fact(
        "identity-service",
        "passwords hashed with argon2id",
        14,
        (
            "hash passwords with argon2id, never bcrypt or sha256",
            "we moved password hashing to argon2id, use passlib's argon2 scheme",
            "don't store a password digest made with hashlib, use the argon2 hasher in auth/passwords.py",
            "new accounts get an argon2id hash; old bcrypt hashes are rehashed at the next login",
            "password hashing is argon2id with the parameters in settings.PASSWORD_HASHING",
        ),
        (
            "Read auth/passwords.py\nhasher = PasswordHasher(time_cost=3, memory_cost=65536, parallelism=2)",
            "Bash: grep -rn bcrypt auth/\nauth/passwords.py:41:    # bcrypt hashes are upgraded on login",
            "Read settings.py\nPASSWORD_HASHING = {'scheme': 'argon2id', 'memory_cost': 65536}",
        ),
        (
            "How are user passwords hashed in identity-service?",
            "Can I use bcrypt for the new admin accounts?",
        ),
        # 0: argon2id (passlib, auth/passwords.py, settings are how); 3 adds that old bcrypt hashes are
        # rehashed at login (its first: argon2id); 1: the observation that says only the rehash
        claims=(0, 0, 0, 0, 0),
        observed_claims=(0, 1, 0),
    ),
    Fact(
        "identity-service",
        "access tokens live 15 minutes, refresh tokens rotate",
        9,
        (
            "access tokens expire after 15 minutes",
            "refresh tokens are single use, every refresh issues a new one and revokes the old",
            "keep the access token lifetime at 15 min, the refresh token does the long sessions",
            "a reused refresh token revokes the whole token family",
        ),
        (
            "Read auth/tokens.py\nACCESS_TOKEN_TTL = timedelta(minutes=15)",
            "Bash: pytest tests/test_refresh.py -q\n4 passed in 0.61s",
        ),
        ("How long is an access token valid?", "What happens when a refresh token is used twice?"),
        # 0: access tokens live 15 min; 1: refresh tokens rotate; 2: a reused one revokes the family; 3: a
        # test run that shows none of them
        claims=(0, 1, 0, 2),
        observed_claims=(0, 3),
    ),
    Fact(
        "identity-service",
        "every login attempt goes to the audit log",
        6,
        (
            "log every login attempt, failed ones too, to the audit log",
            "the audit log gets an entry for each sign-in, with the IP and the user agent",
            "don't skip the audit event when a login fails, security reviews read those",
        ),
        ("Read auth/audit.py\ndef record_login(user_id, ip, user_agent, success):",),
        ("Which login attempts are written to the audit log?",),
        # 0: every attempt, failed ones too; 1: with the IP and the user agent
        claims=(0, 1, 0),
        observed_claims=(1,),
    ),
    Fact(
        "rider-app",
        "strings through i18n keys, no literals in screens",
        16,
        (
            "no hard-coded strings in screens, every text goes through t() with a key",
            "add the English string to locales/en.json and use the key in the component",
            "user-facing text must be translatable, use the i18n hook",
            "a new screen needs its strings in locales/en.json and locales/de.json",
            "don't put literal text in JSX, the lint rule i18next/no-literal-string will fail",
        ),
        (
            'Read locales/en.json\n{"ride.request": "Request a ride", "ride.cancel": "Cancel"}',
            "Bash: npm run lint\nsrc/screens/Payment.tsx:22:9 error i18next/no-literal-string",
            "Read src/screens/RideScreen.tsx\nconst { t } = useTranslation();",
        ),
        (
            "How do I add text to a new screen in rider-app?",
            "Can I write the button label directly in the JSX?",
        ),
        # 0: text through t() keys (locales/en.json, 1, is where); 1: a new screen needs en.json and de.json
        claims=(0, 0, 0, 1, 0),
        observed_claims=(0, 0, 0),
    ),
    Fact(
        "rider-app",
        "location updates every 5 seconds only during a ride",
        7,
        (
            "only track location while a ride is active, never in the background otherwise",
            "location updates go out every 5 seconds during a ride",
            "stop the location watcher as soon as the ride ends, battery complaints again",
            "the GPS interval is 5 s during a trip and off the rest of the time",
        ),
        ("Read src/hooks/useRideLocation.ts\nconst INTERVAL_MS = 5000;",),
        ("When does the app track the rider's location?",),
        # 0: track only during a ride; 1: every 5 s (3 says both, 5 s first)
        claims=(0, 1, 0, 1),
        observed_claims=(1,),
    ),
    Fact(
        "rider-app",
        "crash reports go to Sentry with the release name",
        5,
        (
            "crashes are reported to Sentry",
            "set the Sentry release to the app version and build number",
            "every release uploads its source maps to Sentry",
        ),
        ("Bash: npx sentry-cli releases files 4.12.0 upload-sourcemaps ./build\nUploaded 12 files",),
        ("Where do crash reports go?",),
        claims=(0, 1, 2),
        observed_claims=(2,),
    ),
    Fact(
        "cluster-config",
        "every container sets CPU and memory requests and limits",
        18,
        (
            "every container needs resource requests and limits, the admission policy rejects it otherwise",
            "set cpu and memory requests on each pod spec, and a memory limit",
            "no deployment without resources.requests, kyverno blocks it",
            "add requests and limits to the sidecar containers too",
            "requests and limits are mandatory for every workload in the cluster",
        ),
        (
            "Bash: kubectl apply -f apps/search/deploy.yaml\nError from server: admission webhook "
            "validate.kyverno.svc denied the request: require-requests-limits",
            "Read policies/require-requests-limits.yaml\nkind: ClusterPolicy",
            "Read apps/search/deploy.yaml\nresources:\n  requests:\n    cpu: 250m\n    memory: 256Mi",
        ),
        (
            "What must every container in the cluster declare?",
            "Why was my deployment rejected by the admission webhook?",
        ),
        # 1: cpu and memory requests and a memory limit (not a cpu limit: unsure, a value of its own);
        # 'sidecars too' (3) is in 'every container'
        claims=(0, 1, 0, 0, 0),
        observed_claims=(0, 0, 0),
    ),
    Fact(
        "cluster-config",
        "secrets through the External Secrets operator from Vault",
        10,
        (
            "secrets come from Vault through an ExternalSecret, never a plain Secret in git",
            "don't commit a kind: Secret manifest, write an ExternalSecret that points at Vault",
            "app credentials are synced from Vault by the external-secrets operator",
            "put the secret in Vault under kv/apps/<name> and reference it from an ExternalSecret",
        ),
        (
            "Read apps/billing/externalsecret.yaml\nkind: ExternalSecret\nspec:\n  secretStoreRef:\n"
            "    name: vault",
            "Bash: kubectl get externalsecrets -A\nbilling  billing-db  vault  SecretSynced",
        ),
        ("How do I give a new app its database password?",),
        # unsure: the Vault path kv/apps/<name> (3) is where, said with the rule; one claim
        claims=(0, 0, 0, 0),
        observed_claims=(0, 0),
    ),
    Fact(
        "cluster-config",
        "changes reach the cluster only through Argo CD",
        8,
        (
            "never kubectl apply to production, Argo CD syncs from the main branch",
            "all changes go through a pull request and Argo CD rolls them out",
            "don't edit resources by hand in the cluster, Argo will revert them",
            "the cluster state is whatever main says, Argo CD keeps it in sync",
        ),
        ("Bash: argocd app get search\nSync Status: Synced to main (4f2a9c1)",),
        ("How do changes get deployed to the production cluster?",),
        claims=(0, 0, 0, 0),
        observed_claims=(0,),
    ),
)

SIMILAR_HELDOUT3: tuple[Similar, ...] = (
    Similar(
        "identity-service",
        "passwords hashed with argon2id",
        ("decision", "Password reset links are valid for one hour and can be used once."),
        "How long is a password reset link valid?",
    ),
    Similar(
        "identity-service",
        "access tokens live 15 minutes, refresh tokens rotate",
        (
            "note",
            "the JWT signing keys rotate every 90 days; the JWKS endpoint serves the old key for a week",
        ),
        "How often are the JWT signing keys rotated?",
    ),
    Similar(
        "rider-app",
        "strings through i18n keys, no literals in screens",
        ("decision", "Dates and prices are formatted with Intl using the device locale, not a fixed format."),
        "How are dates and prices formatted in the app?",
    ),
    Similar(
        "rider-app",
        "location updates every 5 seconds only during a ride",
        ("note", "push notifications for ride updates go through Firebase Cloud Messaging on both platforms"),
        "How are ride update notifications sent?",
    ),
    Similar(
        "cluster-config",
        "every container sets CPU and memory requests and limits",
        ("decision", "Production workloads run at least two replicas with a PodDisruptionBudget."),
        "How many replicas does a production workload need?",
    ),
    Similar(
        "cluster-config",
        "secrets through the External Secrets operator from Vault",
        ("note", "TLS certificates for the ingresses are issued by cert-manager from Let's Encrypt"),
        "Where do the ingress TLS certificates come from?",
    ),
)

# Written in session 22 after that session's change to topic crowding (which read heldout3's results),
# before any run on them: three more repos, never looked at while tuning.
FACTS_HELDOUT4: tuple[Fact, ...] = (
    Fact(
        "inventory-service",
        "stock changes only through the reservation API",
        15,
        (
            "never update stock_level directly, go through reserve() and release() in stock/reservations.py",
            "every stock change is a reservation first, the nightly job reconciles the rest",
            "don't write UPDATE statements against the stock table by hand",
            "reservations expire after 20 minutes if the order isn't paid",
            "the warehouse scanner app calls the same reservation endpoint as the checkout",
        ),
        (
            "Read stock/reservations.py\ndef reserve(sku: str, qty: int, order_id: str) -> Reservation:",
            "Bash: grep -rn 'UPDATE stock' app/\n(no output)",
            "Read stock/jobs.py\nRESERVATION_TTL = timedelta(minutes=20)",
        ),
        (
            "How do I change the stock level of a product?",
            "Can I write an UPDATE on the stock table in a migration script?",
        ),
        # 0: only through reserve()/release(); 1: a nightly job reconciles; 2: reservations expire after 20
        # min; 3: the scanner uses the same endpoint
        claims=(0, 1, 0, 2, 3),
        observed_claims=(0, 0, 2),
    ),
    Fact(
        "inventory-service",
        "SKUs are uppercase with a supplier prefix",
        8,
        (
            "SKUs are always uppercase, normalise them at the API boundary",
            "a SKU starts with the three-letter supplier code, like ACM-10042",
            "reject lowercase SKUs in the import, don't silently fix them in the database",
        ),
        ("Read stock/sku.py\nSKU_PATTERN = re.compile(r'^[A-Z]{3}-\\d{5}$')",),
        ("What does a valid SKU look like?",),
        # 0: uppercase, normalised at the API; 1: supplier prefix (the pattern shows the whole format); 2: the
        # import rejects lowercase
        claims=(0, 1, 2),
        observed_claims=(1,),
    ),
    Fact(
        "inventory-service",
        "integration tests run against a Postgres testcontainer",
        6,
        (
            "integration tests need docker running, they start Postgres with testcontainers",
            "don't point the tests at the shared staging database",
            "the test database is thrown away after each session, seed it in conftest fixtures",
        ),
        ("Bash: pytest tests/integration -q\nStarting container postgres:16 ... 38 passed in 41.2s",),
        ("What database do the integration tests use?",),
        claims=(0, 1, 2),
        observed_claims=(0,),
    ),
    Fact(
        "video-transcoder",
        "jobs are idempotent and keyed by the source checksum",
        17,
        (
            "a transcode job is keyed by the sha256 of the source file, resubmitting it is a no-op",
            "workers can crash mid-job, every step must be safe to run twice",
            "write outputs to a temp prefix and rename at the end so a retry never sees half a file",
            "don't use the upload filename as the job id, two customers upload intro.mp4",
            "check the output manifest before starting work, it may already be done",
        ),
        (
            "Read internal/jobs/key.go\nfunc JobKey(src io.Reader) (string, error) { h := sha256.New()",
            "Bash: go test ./internal/jobs -run TestRetryIsNoop\nok  \ttranscoder/internal/jobs\t0.84s",
        ),
        (
            "How are transcode jobs identified?",
            "What happens if a worker crashes halfway through a job?",
        ),
        # 'not the upload filename' (3) follows from keying by checksum; 4: a test run named for a retry,
        # which states none of them exactly
        claims=(0, 1, 2, 0, 3),
        observed_claims=(0, 4),
    ),
    Fact(
        "video-transcoder",
        "ffmpeg is pinned and called through the wrapper",
        10,
        (
            "call ffmpeg only through internal/ffmpeg.Run, it sets the timeouts and parses progress",
            "ffmpeg is pinned to 6.1 in the base image, don't rely on a newer filter",
            'no exec.Command("ffmpeg", ...) scattered in handlers',
            "the wrapper kills ffmpeg after the job deadline, so never call it without a context",
        ),
        ("Read Dockerfile\nFROM jrottenberg/ffmpeg:6.1-ubuntu2204",),
        ("How should the code invoke ffmpeg?", "Which ffmpeg version do we build against?"),
        # 0: only through internal/ffmpeg.Run; 1: pinned to 6.1; 2: always with a context
        claims=(0, 1, 0, 2),
        observed_claims=(1,),
    ),
    Fact(
        "video-transcoder",
        "renditions follow the ladder in ladder.yaml",
        5,
        (
            "the output renditions come from config/ladder.yaml, don't hard-code resolutions",
            "adding a rendition means a new rung in the ladder file and a CDN cache rule",
        ),
        ("Read config/ladder.yaml\n- {height: 1080, bitrate: 5000k}\n- {height: 720, bitrate: 2800k}",),
        ("Where are the output resolutions defined?",),
        claims=(0, 1),
        observed_claims=(0,),
    ),
    Fact(
        "design-system",
        "colours come from tokens, never hex values",
        16,
        (
            "no hex colours in components, use the tokens from tokens/color.json",
            "if a colour is missing, add a token first and get design to approve it",
            "the stylelint rule color-no-hex is on, it will fail the build",
            "dark mode works only because every colour goes through a token",
            "use var(--ds-color-*) in CSS, never rgb() literals",
        ),
        (
            'Read tokens/color.json\n{"primary": {"500": {"value": "#2F6FEB"}}}',
            "Bash: npx stylelint 'src/**/*.css'\nsrc/Button/Button.css 12:10 color-no-hex",
        ),
        ("How do I give a component its colours?", "Can I write #FF0000 in a component's CSS?"),
        # 0: tokens, no hex (stylelint, 2, enforces it; var(--ds-color-*), 4, is how in CSS); 1: a missing
        # colour is a new token design approves; 2: dark mode depends on it (a reason)
        claims=(0, 1, 0, 2, 0),
        observed_claims=(0, 0),
    ),
    Fact(
        "design-system",
        "every component ships with a visual regression test",
        9,
        (
            "new components need a Chromatic snapshot story, reviewers check the visual diff",
            "a component PR without a story fails the visual-tests job",
            "update the baseline in Chromatic only after design signs off on the change",
        ),
        ("Bash: npm run chromatic\nBuild 412 published: 3 changes to review",),
        ("What tests does a new component need?",),
        # 1 (a PR without a story fails) is what enforces 0
        claims=(0, 0, 1),
        observed_claims=(0,),
    ),
    Fact(
        "design-system",
        "breaking changes need a changeset and a major bump",
        7,
        (
            "every PR that changes a public prop needs a changeset file",
            "renaming or removing a prop is a major version, mark it so in the changeset",
            "the release workflow publishes from the changesets, don't bump package.json by hand",
        ),
        ('Read .changeset/config.json\n{"baseBranch": "main", "access": "public"}',),
        ("How do I release a change that renames a prop?",),
        # 3: the config shows only that changesets are set up
        claims=(0, 1, 2),
        observed_claims=(3,),
    ),
)

SIMILAR_HELDOUT4: tuple[Similar, ...] = (
    Similar(
        "inventory-service",
        "stock changes only through the reservation API",
        (
            "decision",
            "Stock counts from the warehouse are imported every night at 02:00 from the WMS export.",
        ),
        "When are the warehouse stock counts imported?",
    ),
    Similar(
        "inventory-service",
        "SKUs are uppercase with a supplier prefix",
        ("note", "barcodes are EAN-13 and are stored as strings, never as integers"),
        "How are barcodes stored?",
    ),
    Similar(
        "video-transcoder",
        "jobs are idempotent and keyed by the source checksum",
        ("decision", "Source uploads larger than 20 GB are rejected at the upload API."),
        "What is the largest source file we accept?",
    ),
    Similar(
        "video-transcoder",
        "ffmpeg is pinned and called through the wrapper",
        ("note", "thumbnails are extracted at 10% of the duration and stored as WebP"),
        "How are video thumbnails made?",
    ),
    Similar(
        "design-system",
        "colours come from tokens, never hex values",
        ("decision", "Spacing uses a 4 px scale; components take spacing props in scale steps, not pixels."),
        "How is spacing specified in components?",
    ),
    Similar(
        "design-system",
        "every component ships with a visual regression test",
        ("note", "the docs site is built with Storybook 8 and deployed to GitHub Pages from main"),
        "Where is the component documentation deployed?",
    ),
)

# Written in session 23 before any change of that session, and never looked at while tuning: three more
# repos, each with facts restated across sessions and memories that resemble them but are other facts.
FACTS_HELDOUT5: tuple[Fact, ...] = (
    Fact(
        "ledger-service",
        "the ledger is append-only, corrections are reversing entries",
        16,
        (
            "never delete or edit a posted journal entry, post a reversing entry instead",
            "the ledger tables are append-only, the app user has no UPDATE grant on them",
            "to fix a wrong posting, reverse it and post the correct one with a reference to the original",
            "auditors replay the whole journal, so history has to stay exactly as it was",
            "every entry must balance: the debits equal the credits or post_entry() raises",
        ),
        (
            "Read ledger/posting.py\ndef post_entry(lines: list[Line]) -> Entry:  # raises Unbalanced",
            "Bash: psql -c '\\dp journal_lines'\napp_user=ar/ledger_owner",
        ),
        (
            "How do I correct a journal entry that was posted with the wrong amount?",
            "Can I delete a duplicated posting from the journal table?",
        ),
        # 0: append-only (1: the grant enforces it); 1: a correction references the original (unsure); 2:
        # auditors replay the journal (a reason); 3: entries balance
        claims=(0, 0, 1, 2, 3),
        observed_claims=(3, 0),
    ),
    Fact(
        "ledger-service",
        "currency conversion uses the daily ECB rate snapshot",
        9,
        (
            "convert currencies with the rate snapshot from rates/ecb_daily, never a live FX API",
            "the rate used is the one published for the posting date, not today's",
            "store the rate id next to the converted amount so a conversion can be reproduced",
        ),
        ("Read ledger/fx.py\ndef rate_for(day: date, ccy: str) -> Rate:  # from ecb_daily snapshot",),
        ("Which exchange rate do we use to convert an invoice in USD?",),
        claims=(0, 1, 2),
        observed_claims=(0,),
    ),
    Fact(
        "ledger-service",
        "month-end close locks the period",
        6,
        (
            "once finance closes a month, postings into that period are rejected",
            "late invoices for a closed month are posted on the first open day, "
            "with the original date in the memo",
            "only the finance-admin role can reopen a period, and it writes an audit record",
        ),
        ("Bash: pytest tests/test_periods.py -q\n7 passed in 0.9s",),
        ("What happens when I post into last month after the close?",),
        claims=(0, 1, 2),
        observed_claims=(3,),
    ),
    Fact(
        "reporting-etl",
        "loads are incremental on updated_at with a lookback",
        14,
        (
            "the extract is incremental on updated_at, no full table scans of the source",
            "keep a 2-hour lookback window, rows committed late would be missed otherwise",
            "the merge into the warehouse is an upsert on the primary key, so reloading a window is safe",
            "the watermark lives in etl_state, don't reset it by hand without telling the data team",
        ),
        (
            "Read etl/extract.py\nLOOKBACK = timedelta(hours=2)",
            "Bash: dbt run -s orders_incremental\nOK created incremental model orders_incremental",
        ),
        (
            "How does the orders extract decide which rows to pull?",
            "Is it safe to rerun yesterday's load?",
        ),
        claims=(0, 1, 2, 3),
        observed_claims=(1, 0),
    ),
    Fact(
        "reporting-etl",
        "all timestamps in the warehouse are UTC",
        8,
        (
            "convert every timestamp to UTC in the staging layer",
            "dashboards convert to the viewer's timezone, the tables never do",
            "source systems in Berlin send local time, so the staging model must attach Europe/Berlin first",
        ),
        (
            "Read models/staging/stg_orders.sql\n"
            "convert_timezone('Europe/Berlin', 'UTC', created_local) as created_at",
        ),
        ("Which timezone do the warehouse tables use?",),
        claims=(0, 1, 2),
        observed_claims=(2,),
    ),
    Fact(
        "reporting-etl",
        "PII columns are hashed before they reach the warehouse",
        7,
        (
            "email and phone are hashed with the salted sha256 macro in staging, raw values never land",
            "analysts join customers on the hashed email, not on the raw address",
            "new source columns with personal data need a review by the privacy team first",
        ),
        (
            "Read macros/hash_pii.sql\n"
            "{% macro hash_pii(col) %} sha2(concat({{ var('pii_salt') }}, {{ col }}), 256)",
        ),
        ("How do I bring a customer's email address into the warehouse?",),
        claims=(0, 1, 2),
        observed_claims=(0,),
    ),
    Fact(
        "edge-proxy",
        "config changes roll out through the canary first",
        15,
        (
            "a change to the Envoy config goes to the canary pool first and bakes for an hour",
            "watch the 5xx rate on the canary dashboard before promoting",
            "promotion is a separate PR that bumps the stable tag, never a direct push",
            "if the canary error budget burns, the rollout controller reverts on its own",
            "don't hot-edit a listener on a production node, it gets overwritten on the next sync",
        ),
        (
            "Read rollout/stages.yaml\n- name: canary\n  pool: edge-canary\n  bake: 60m",
            "Bash: kubectl get rollout edge-envoy\nedge-envoy  Paused  canary 10%",
        ),
        (
            "How do I ship a new route to the production proxies?",
            "Can I fix a listener directly on one production node?",
        ),
        claims=(0, 1, 2, 3, 4),
        observed_claims=(0, 0),
    ),
    Fact(
        "edge-proxy",
        "TLS certificates come from cert-manager, never committed",
        9,
        (
            "certificates are issued by cert-manager from the internal ACME issuer",
            "never commit a private key or a .pem file to this repo, the pre-commit hook blocks it anyway",
            "renewal is automatic 30 days before expiry, the alert fires at 14 days",
        ),
        ("Read certs/edge-tls.yaml\nkind: Certificate\nspec:\n  issuerRef: {name: internal-acme}",),
        ("Where do the proxy's TLS certificates come from?",),
        claims=(0, 1, 2),
        observed_claims=(0,),
    ),
    Fact(
        "edge-proxy",
        "rate limits are set per route in ratelimits.yaml",
        5,
        (
            "rate limits are declared per route in config/ratelimits.yaml, not in the Envoy filter",
            "the default limit is 100 requests a second per client IP unless the route overrides it",
        ),
        ("Read config/ratelimits.yaml\n- route: /api/search\n  rps: 20",),
        ("Where do I set the rate limit for a new route?",),
        claims=(0, 1),
        observed_claims=(0,),
    ),
)

SIMILAR_HELDOUT5: tuple[Similar, ...] = (
    Similar(
        "ledger-service",
        "the ledger is append-only, corrections are reversing entries",
        ("decision", "Journal entries are numbered per legal entity with a gapless sequence."),
        "How are journal entries numbered?",
    ),
    Similar(
        "ledger-service",
        "currency conversion uses the daily ECB rate snapshot",
        ("note", "amounts are rounded half-even to the currency's minor unit only when posting"),
        "How are amounts rounded?",
    ),
    Similar(
        "reporting-etl",
        "loads are incremental on updated_at with a lookback",
        ("decision", "The ETL runs hourly on Airflow; the DAG is etl_hourly in the dags repo."),
        "How often does the ETL run?",
    ),
    Similar(
        "reporting-etl",
        "all timestamps in the warehouse are UTC",
        ("note", "fiscal weeks start on Monday and fiscal year starts in February"),
        "When does the fiscal year start?",
    ),
    Similar(
        "edge-proxy",
        "config changes roll out through the canary first",
        ("decision", "Access logs from the edge proxies are sampled at 10% and kept for 7 days."),
        "How long are the proxy access logs kept?",
    ),
    Similar(
        "edge-proxy",
        "TLS certificates come from cert-manager, never committed",
        ("note", "HTTP/3 is enabled only on the public listeners, internal ones stay on HTTP/2"),
        "Which listeners serve HTTP/3?",
    ),
)

# Written in session 24 before any change of that session (and never looked at while tuning): three
# repos of kinds not used before (a command-line tool, a browser extension, a chat bot). Here a user
# often says two or three sentences of a fact in one session ("ack within 3 seconds ... dedupe on
# event_id ..."), as people do when they explain a convention again: ``_duplicate_split`` lays these
# out with ``together``. Most sentences of one fact share no word with each other (facets).
FACTS_HELDOUT6: tuple[Fact, ...] = (
    Fact(
        "release-cli",
        "flag, then config file, then environment",
        20,
        (
            "command-line flags win over the config file, and the config file wins over environment "
            "variables",
            "never read os.Getenv in a subcommand, everything goes through the viper binding in cmd/root.go",
            "a new option needs a flag, a config key and a line in docs/config.md, all three",
            "keep option names kebab-case like --dry-run, and use the same name as the key in "
            ".releaserc.yaml",
            "precedence is flag, then ~/.releaserc.yaml, then RELEASE_* variables, then the built-in default",
        ),
        (
            "Read cmd/root.go\nviper.BindPFlags(rootCmd.PersistentFlags())",
            "Bash: release-cli publish --dry-run --channel beta\n"
            "channel=beta (from flag, overrides stable from ~/.releaserc.yaml)",
        ),
        (
            "If the channel is set in the config file and I also pass --channel, which one wins?",
            "How do I add a new option to a subcommand?",
        ),
        # 4 is 0's precedence said more fully (the file, the prefix, the default)
        claims=(0, 1, 2, 3, 0),
        observed_claims=(1, 0),
    ),
    Fact(
        "release-cli",
        "exit codes are part of the public contract",
        11,
        (
            "exit 0 means success, 1 a usage error, 2 a failed release; CI scripts depend on that",
            "don't call os.Exit inside library code, return an error and let main map it to a status",
            "changing what an exit status means is a breaking change and needs a major version",
        ),
        ("Read internal/exitcode/codes.go\nconst (OK = 0; Usage = 1; ReleaseFailed = 2)",),
        ("What exit code should the tool return when the upload fails?",),
        claims=(0, 1, 2),
        observed_claims=(0,),
    ),
    Fact(
        "release-cli",
        "stdout is for results, stderr for people",
        6,
        (
            "progress messages and warnings go to stderr, stdout carries only the result",
            "--json must print exactly one JSON document, people pipe it into jq",
            "no ANSI colours when the output isn't a terminal",
        ),
        ('Bash: release-cli status --json | jq .version\n"4.2.1"',),
        ("Where should a progress message be printed?",),
        claims=(0, 1, 2),
        observed_claims=(1,),
    ),
    Fact(
        "browser-extension",
        "minimal permissions, host access asked at runtime",
        18,
        (
            "don't add sites to host_permissions in manifest.json, call chrome.permissions.request when "
            "the user clicks",
            "the Web Store review rejected us once for <all_urls>, keep the manifest to activeTab and "
            "storage",
            "every new permission needs a sentence in PRIVACY.md that explains why we need it",
            "optional origins go under optional_host_permissions and are requested from the popup",
            "a scary prompt at install time loses us users, that's why we ask later",
        ),
        (
            'Read manifest.json\n"permissions": ["activeTab", "storage"], '
            '"optional_host_permissions": ["https://*/*"]',
            "Bash: npx web-ext lint\nerrors 0, notices 0, warnings 1",
        ),
        (
            "How do I get access to a new site from the extension?",
            "Can I put <all_urls> in the manifest?",
        ),
        # 0: ask for hosts at runtime (optional_host_permissions, 3, is how: unsure); 1: the manifest keeps
        # activeTab and storage; 2: PRIVACY.md; 3: why we ask later (a reason)
        claims=(0, 1, 2, 0, 3),
        observed_claims=(1, 4),
    ),
    Fact(
        "browser-extension",
        "the service worker keeps no state in memory",
        10,
        (
            "the background service worker can be killed at any moment, keep state in chrome.storage.session",
            "no module-level variables in background.ts that have to outlive one event",
            "register every listener synchronously at the top level, or events get lost after a restart",
        ),
        ("Read src/background.ts\nchrome.runtime.onMessage.addListener(handleMessage)  // top level",),
        ("Where should the background script keep the current tab's state?",),
        claims=(0, 1, 2),
        observed_claims=(2,),
    ),
    Fact(
        "browser-extension",
        "content scripts reach the backend only through the worker",
        6,
        (
            "content scripts never call our API themselves, they message the background worker",
            "don't inject inline scripts into the page, most shops' CSP blocks them",
            "check sender.id on every incoming message before acting on it",
        ),
        ("Read src/content/bridge.ts\nchrome.runtime.sendMessage({type: 'price-lookup', sku})",),
        ("How should a content script fetch prices from our backend?",),
        claims=(0, 1, 2),
        observed_claims=(0,),
    ),
    Fact(
        "support-bot",
        "ack within 3 seconds, slow work is deferred",
        22,
        (
            "Slack retries an event we don't ack within 3 seconds, so ack first and work afterwards",
            "anything slower than a cache lookup goes onto the Celery queue, never inline in the handler",
            "dedupe incoming events on event_id, the retries arrive with the same one",
            "post the real answer with chat.postMessage once the job is done, threaded under the question",
            "an X-Slack-Retry-Num header means we have seen this event before",
        ),
        (
            "Read bot/handlers.py\n@app.event('app_mention')\n"
            "def on_mention(ack, event): ack(); answer.delay(event['event_id'])",
            "Bash: grep -rn 'requests.get' bot/handlers.py\n(no output)",
        ),
        (
            "How should a slash command handler run a slow search?",
            "Why did the bot answer the same question twice?",
        ),
        # 4 (the retry header) and 2 (dedupe on event_id) both recognise a retry, by different means: two
        # claims (unsure)
        claims=(0, 1, 2, 3, 4),
        observed_claims=(0, 1),
    ),
    Fact(
        "support-bot",
        "the bot never stores what people wrote",
        12,
        (
            "we keep message ids and timestamps only, never the text people wrote",
            "logs must not contain a message body, the redact() filter is there for that",
            "workspaces can ask us to delete their data, so nothing from Slack goes into the analytics db",
            "if you need context for a bug, ask the customer for a screenshot instead of logging chats",
        ),
        ("Read bot/logging.py\nhandler.addFilter(redact)  # drops event['text']",),
        ("Can I log the incoming message to debug the parser?",),
        # unsure: no message body in logs (1) against 'keep ids only' (0): logs kept apart
        claims=(0, 1, 2, 3),
        observed_claims=(1,),
    ),
    Fact(
        "support-bot",
        "answers cite a help-centre article or go to a human",
        7,
        (
            "every answer links the help-centre article it came from",
            "when search finds no article scoring above 0.6, hand the question over to a human agent",
            "don't let the bot invent steps that aren't in an article",
        ),
        ("Bash: pytest tests/test_answers.py -q\n14 passed in 1.3s",),
        ("What should the bot do when it can't find a matching article?",),
        claims=(0, 1, 2),
        observed_claims=(3,),
    ),
)

SIMILAR_HELDOUT6: tuple[Similar, ...] = (
    Similar(
        "release-cli",
        "flag, then config file, then environment",
        ("decision", "Release notes are generated from the conventional commit messages since the last tag."),
        "How are release notes generated?",
    ),
    Similar(
        "release-cli",
        "stdout is for results, stderr for people",
        ("note", "the binary is built with goreleaser for linux, darwin and windows, amd64 and arm64"),
        "Which platforms is the binary built for?",
    ),
    Similar(
        "browser-extension",
        "minimal permissions, host access asked at runtime",
        ("decision", "The extension ships to Chrome and Firefox; a Safari port is not planned."),
        "Which browsers do we publish the extension for?",
    ),
    Similar(
        "browser-extension",
        "the service worker keeps no state in memory",
        ("note", "the popup is 360 px wide and rendered with Preact to keep the bundle small"),
        "How wide is the popup?",
    ),
    Similar(
        "support-bot",
        "ack within 3 seconds, slow work is deferred",
        ("decision", "The bot answers in English and German; other languages get a canned reply."),
        "Which languages does the bot answer in?",
    ),
    Similar(
        "support-bot",
        "the bot never stores what people wrote",
        ("note", "the bot's Slack token is rotated every 90 days by the platform team"),
        "How often is the bot token rotated?",
    ),
)

# Written in session 21 before any change of that session to supersession, and never looked at while
# tuning: two more repos, each with rules amended later and near-miss pairs (laid out on their own).
RULES_HELDOUT2: tuple[Rule, ...] = (
    Rule(
        "notification-service",
        "email provider",
        ("decision", "Transactional email is sent through Amazon SES from the eu-west-1 region."),
        (
            "prompt",
            "we're moving transactional email to Postmark, SES keeps landing password resets in spam",
        ),
        ("Which provider sends our transactional email?",),
    ),
    Rule(
        "notification-service",
        "push retry count",
        ("prompt", "retry a failed push notification 3 times, then give up and log it"),
        (
            "note",
            "push notifications now retry 6 times with backoff, the APNs outages last longer than 3 tries",
        ),
        ("How many times is a failed push notification retried?",),
    ),
    Rule(
        "notification-service",
        "quiet hours",
        ("decision", "No marketing notifications between 21:00 and 08:00 in the user's local time zone."),
        (
            "decision",
            "Quiet hours change to 22:00-07:00 local time after the product review; reminders are exempt.",
        ),
        ("When are marketing notifications held back?", "What are the quiet hours for notifications?"),
    ),
    Rule(
        "warehouse-ops",
        "label printer format",
        ("prompt", "shipping labels are 4x6 ZPL, print them straight to the Zebra printers"),
        (
            "prompt",
            "switch the shipping labels to PDF, the new carrier portal only takes PDF and the Zebras can "
            "print it",
        ),
        ("What format are shipping labels printed in?",),
    ),
    Rule(
        "warehouse-ops",
        "pick list sort order",
        ("decision", "Pick lists are sorted by aisle, then by shelf, so pickers walk one loop."),
        (
            "decision",
            "Pick lists are sorted by pick zone instead of aisle since the mezzanine opened; zones follow "
            "the conveyor.",
        ),
        ("How are pick lists sorted?",),
    ),
    Rule(
        "warehouse-ops",
        "stock sync interval",
        ("note", "inventory syncs to the storefront every 15 minutes"),
        ("note", "inventory sync runs every 2 minutes now, we oversold during the flash sale"),
        ("How often does inventory sync to the storefront?",),
    ),
)

NEAR_MISSES_HELDOUT2: tuple[NearMiss, ...] = (
    NearMiss(
        "notification-service",
        ("SMS sender id", "email sender address"),
        (
            ("decision", "SMS messages go out under the sender id ACMEPAY."),
            ("decision", "Emails go out from no-reply@acmepay.com with replies routed to support."),
        ),
        ("What sender id do SMS messages use?", "Which address are emails sent from?"),
    ),
    NearMiss(
        "notification-service",
        ("push payload size", "webhook payload size"),
        (
            ("note", "push payloads must stay under 4 KB, APNs rejects anything bigger"),
            ("note", "outgoing webhook payloads are capped at 256 KB"),
        ),
        ("How big can a push payload be?", "What is the size limit of an outgoing webhook payload?"),
    ),
    NearMiss(
        "notification-service",
        ("digest email schedule", "unsubscribe link"),
        (
            ("decision", "The weekly digest email goes out on Mondays at 09:00 local time."),
            ("decision", "Every email has a one-click unsubscribe link in the footer."),
        ),
        ("When does the weekly digest go out?", "Do our emails have an unsubscribe link?"),
    ),
    NearMiss(
        "warehouse-ops",
        ("inbound dock hours", "outbound dock hours"),
        (
            ("note", "inbound trucks unload at docks 1-4 between 06:00 and 14:00"),
            ("note", "outbound parcels leave from docks 7-9, last pickup 18:30"),
        ),
        ("When can inbound trucks unload?", "When is the last outbound pickup?"),
    ),
    NearMiss(
        "warehouse-ops",
        ("cycle count frequency", "full stocktake"),
        (
            ("decision", "High-value bins are cycle counted every week."),
            ("decision", "A full stocktake happens twice a year, in January and July."),
        ),
        ("How often are high-value bins counted?", "When is the full stocktake?"),
    ),
    NearMiss(
        "warehouse-ops",
        ("scanner battery", "forklift battery"),
        (
            ("prompt", "handheld scanners get a fresh battery at every shift change"),
            ("prompt", "forklift batteries charge overnight in bay C, never during a shift"),
        ),
        ("When do handheld scanners get a fresh battery?", "When are forklift batteries charged?"),
    ),
)

# --------------------------------------------------------------------------------------------------
# Filler: the other work of each repo (hand-written vocabulary, composed by templates)
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Vocab:
    files: tuple[str, ...]
    symbols: tuple[str, ...]
    features: tuple[str, ...]
    tests: tuple[str, ...]
    runs: tuple[tuple[str, str], ...]  # (command, output)
    edits: tuple[str, ...]  # what an edit did, given a symbol
    deps: tuple[str, ...]
    people: tuple[str, ...] = ("Maria", "Tom", "Priya", "Jonas", "Aiko")


PYTHON_WEB = Vocab(
    files=(
        "app/api/orders.py",
        "app/api/products.py",
        "app/services/cart.py",
        "app/services/pricing.py",
        "app/models/order.py",
        "app/models/customer.py",
        "app/search/indexer.py",
        "app/api/deps.py",
        "app/services/inventory.py",
        "tests/api/test_orders.py",
    ),
    symbols=(
        "compute_cart_total",
        "apply_discount_codes",
        "OrderRepository.list_for_customer",
        "reserve_stock",
        "serialize_product",
        "get_current_customer",
        "reindex_products",
        "merge_guest_cart",
        "ShippingQuote.from_rates",
        "normalize_sku",
    ),
    features=(
        "guest checkout",
        "product search",
        "order history endpoint",
        "discount codes",
        "inventory reservation",
        "shipping quotes",
        "wishlist endpoint",
        "CSV product import",
    ),
    tests=(
        "test_guest_checkout_merges_cart",
        "test_discount_stacking",
        "test_reserve_stock_race",
        "test_search_pagination_stable",
        "test_order_history_filters",
    ),
    runs=(
        ("pytest tests/api -q", "112 passed in 9.84s"),
        (
            "pytest tests/services/test_cart.py -q",
            "1 failed, 23 passed in 2.10s\nFAILED "
            "test_cart.py::test_merge_guest_cart - AssertionError: 3 != 2",
        ),
        (
            "alembic upgrade head",
            "INFO  [alembic.runtime.migration] Running upgrade 3f1c -> 7a9e, add wishlist table",
        ),
        ("uvicorn app.main:app --reload", "INFO:     Application startup complete."),
        ("git diff --stat", " app/services/cart.py | 24 +++++++++++-------\n 1 file changed"),
    ),
    edits=(
        "extracted the discount loop out of {symbol}",
        "added an early return to {symbol} for empty input",
        "renamed a local in {symbol} for clarity",
        "added type hints to {symbol}",
        "moved {symbol} below its helpers",
    ),
    deps=("fastapi", "pydantic", "sqlalchemy", "uvicorn"),
)

GO = Vocab(
    files=(
        "internal/invoice/generate.go",
        "internal/ledger/entry.go",
        "internal/subscription/renew.go",
        "cmd/billing/main.go",
        "internal/tax/rates.go",
        "internal/payment/stripe.go",
        "internal/credit/notes.go",
        "internal/api/handlers.go",
    ),
    symbols=(
        "GenerateInvoice",
        "Ledger.Post",
        "RenewSubscription",
        "ComputeTax",
        "ProrateUpgrade",
        "IssueCreditNote",
        "HandleWebhook",
        "LoadPlanCatalog",
    ),
    features=(
        "proration on plan upgrades",
        "credit notes",
        "tax calculation for EU customers",
        "subscription renewals",
        "usage-based billing",
        "invoice PDF layout",
        "refund flow",
    ),
    tests=(
        "TestProrateUpgradeMidCycle",
        "TestComputeTaxReverseCharge",
        "TestRenewSubscriptionGrace",
        "TestIssueCreditNotePartial",
    ),
    runs=(
        ("go test ./...", "ok  \tbilling/internal/invoice\t0.412s\nok  \tbilling/internal/ledger\t0.198s"),
        (
            "go test ./internal/tax -run TestComputeTax",
            "--- FAIL: TestComputeTaxReverseCharge (0.00s)\n    rates_test.go:58: got 19.00, want 0.00",
        ),
        ("go vet ./...", "(no output)"),
        ("go build ./cmd/billing", "(no output)"),
        (
            "git log --oneline -3",
            "a91c2e4 proration: round per line\n7d03b1f credit notes: partial\nc1e9a0d tax: EU rates table",
        ),
    ),
    edits=(
        "split {symbol} into two functions",
        "added a table-driven test for {symbol}",
        "fixed the rounding in {symbol}",
        "documented {symbol}",
    ),
    deps=("github.com/stripe/stripe-go", "github.com/jackc/pgx", "go.uber.org/zap"),
)

TS_WEB = Vocab(
    files=(
        "src/pages/Orders.tsx",
        "src/components/OrderTable.tsx",
        "src/components/RevenueChart.tsx",
        "src/hooks/useFilters.ts",
        "src/pages/Settings.tsx",
        "src/components/Sidebar.tsx",
        "src/lib/format.ts",
        "src/pages/Customers.tsx",
        "src/components/CartSummary.tsx",
        "src/pages/Checkout.tsx",
    ),
    symbols=(
        "useFilters",
        "OrderTable",
        "RevenueChart",
        "formatCurrency",
        "Sidebar",
        "CustomerDrawer",
        "CartSummary",
        "usePaymentIntent",
        "AddressForm",
    ),
    features=(
        "revenue chart",
        "orders table filters",
        "customer drawer",
        "settings page",
        "dark mode",
        "address form validation",
        "saved carts",
        "CSV export",
    ),
    tests=(
        "OrderTable sorts by date",
        "RevenueChart renders empty state",
        "useFilters syncs with URL",
        "AddressForm rejects bad postcodes",
    ),
    runs=(
        ("tsc --noEmit", "Found 0 errors."),
        (
            "tsc --noEmit",
            "src/components/OrderTable.tsx:88:14 - error TS2322: Type 'string | undefined' is "
            "not assignable to type 'string'.",
        ),
        ("eslint src --max-warnings 0", "✔ no problems"),
        ("git status --short", " M src/hooks/useFilters.ts\n?? src/components/CustomerDrawer.test.tsx"),
    ),
    edits=(
        "memoized {symbol}",
        "added an empty state to {symbol}",
        "typed the props of {symbol}",
        "moved {symbol} into its own file",
    ),
    deps=("react", "react-router", "recharts", "zod"),
)

MOBILE = Vocab(
    files=(
        "src/screens/ProductScreen.tsx",
        "src/screens/CartScreen.tsx",
        "src/components/PriceTag.tsx",
        "src/api/products.ts",
        "ios/AcmeShop/AppDelegate.mm",
        "android/app/build.gradle",
        "src/screens/OrderTracking.tsx",
        "src/hooks/useBiometrics.ts",
    ),
    symbols=(
        "ProductScreen",
        "CartScreen",
        "PriceTag",
        "fetchProducts",
        "useBiometrics",
        "OrderTracking",
        "registerPushToken",
        "AddToCartButton",
    ),
    features=(
        "order tracking map",
        "biometric login",
        "push notification opt-in",
        "product gallery",
        "offline cart",
        "app rating prompt",
        "dark mode",
    ),
    tests=(
        "CartScreen shows empty state",
        "PriceTag formats yen",
        "useBiometrics falls back to PIN",
        "OrderTracking polls until delivered",
    ),
    runs=(
        ("npx jest src/screens", "Tests: 64 passed, 64 total"),
        ("cd ios && pod install", "Pod installation complete! There are 71 dependencies from the Podfile"),
        ("./gradlew assembleDebug", "BUILD SUCCESSFUL in 1m 12s"),
        ("npx tsc --noEmit", "Found 0 errors."),
    ),
    edits=(
        "fixed the layout of {symbol} on small screens",
        "added accessibility labels to {symbol}",
        "handled the loading state in {symbol}",
        "memoized the list items in {symbol}",
    ),
    deps=("react-native", "react-native-reanimated", "@tanstack/react-query"),
)

DATA_VOCAB = Vocab(
    files=(
        "dags/orders.py",
        "dags/events.py",
        "models/marts/fct_orders.sql",
        "models/marts/dim_customers.sql",
        "extract/shopify.py",
        "extract/stripe_export.py",
        "models/staging/schema.yml",
        "dags/common.py",
    ),
    symbols=(
        "fct_orders",
        "dim_customers",
        "extract_shopify_orders",
        "load_to_warehouse",
        "dedupe_events",
        "fct_refunds",
        "build_sessions",
    ),
    features=(
        "refunds mart",
        "customer lifetime value model",
        "sessionization",
        "Stripe export ingestion",
        "late-arriving events",
        "dbt docs site",
    ),
    tests=(
        "not_null_fct_orders_order_id",
        "unique_dim_customers_customer_id",
        "accepted_values_fct_orders_status",
        "relationships_fct_refunds_order_id",
    ),
    runs=(
        ("dbt build --select fct_orders+", "Completed successfully\nDone. PASS=14 WARN=0 ERROR=0 SKIP=0"),
        (
            "dbt test --select dim_customers",
            "Failure in test unique_dim_customers_customer_id\nGot 3 results, configured to fail if != 0",
        ),
        ("airflow dags test orders 2026-08-01", "Marking run <DagRun orders> successful"),
        ("pytest tests/extract -q", "31 passed in 3.02s"),
    ),
    edits=(
        "rewrote the join in {symbol}",
        "added a dedupe step to {symbol}",
        "documented the grain of {symbol}",
        "added an incremental filter to {symbol}",
    ),
    deps=("dbt-core", "apache-airflow", "great-expectations"),
)

ML = Vocab(
    files=(
        "src/train.py",
        "src/data/loader.py",
        "src/models/ranker.py",
        "src/eval/metrics.py",
        "configs/base.yaml",
        "scripts/train.sbatch",
        "src/features/text.py",
        "notebooks/error_analysis.ipynb",
    ),
    symbols=(
        "RankerModel",
        "build_dataloader",
        "ndcg_at_k",
        "TextFeaturizer",
        "train_epoch",
        "load_checkpoint",
        "hard_negative_sampler",
    ),
    features=(
        "hard negative mining",
        "ranking eval",
        "mixed precision training",
        "checkpoint resume",
        "feature store export",
        "query tower distillation",
    ),
    tests=(
        "test_ndcg_at_k_perfect_ranking",
        "test_loader_shuffles_per_epoch",
        "test_featurizer_lowercases",
        "test_checkpoint_roundtrip",
    ),
    runs=(
        ("pytest tests -q", "57 passed in 12.40s"),
        ("python -m src.eval.run --split val", "ndcg@10 0.412  mrr 0.388  recall@100 0.871"),
        ("nvidia-smi", "| 0  NVIDIA A100-SXM4-80GB  | 71C  P0  298W / 400W | 61234MiB / 81920MiB |"),
        ("squeue -u $USER", "882134  a100  train  R  3:41:07  1 gpu-node-07"),
    ),
    edits=(
        "vectorized the loop in {symbol}",
        "added gradient clipping to {symbol}",
        "moved {symbol} to the new config schema",
        "added a docstring to {symbol}",
    ),
    deps=("torch", "lightning", "transformers"),
)

INFRA = Vocab(
    files=(
        "terraform/modules/vpc/main.tf",
        "terraform/envs/prod/main.tf",
        "k8s/base/ingress.yaml",
        "k8s/overlays/prod/kustomization.yaml",
        "terraform/modules/rds/main.tf",
        "helm/values-prod.yaml",
        "k8s/base/hpa.yaml",
        "terraform/modules/eks/node_groups.tf",
    ),
    symbols=(
        "module.vpc",
        "module.eks",
        "aws_security_group.api",
        "Ingress storefront",
        "HPA billing",
        "module.rds_billing",
        "aws_iam_role.ci_deploy",
    ),
    features=(
        "private subnets for the data stack",
        "ingress TLS renewal",
        "autoscaling for billing",
        "cost dashboard",
        "VPN for contractors",
        "egress NAT cost cleanup",
    ),
    tests=("terraform validate", "kubeconform on the prod overlay", "tflint", "checkov scan"),
    runs=(
        ("terraform plan -out plan.tfplan", "Plan: 2 to add, 1 to change, 0 to destroy."),
        ("kubectl get pods -n storefront", "storefront-api-7d9c6b5f8-2kqzv   1/1   Running   0   3h"),
        (
            "kustomize build k8s/overlays/prod | kubeconform -strict",
            "Summary: 48 resources found - Valid: 48",
        ),
        ("tflint --recursive", "2 issue(s) found: aws_instance_previous_type"),
    ),
    edits=(
        "tagged every resource in {symbol}",
        "tightened the ingress rules of {symbol}",
        "moved {symbol} to the shared module",
        "added outputs to {symbol}",
    ),
    deps=("hashicorp/aws", "ingress-nginx", "cert-manager"),
)

VOCAB: dict[str, Vocab] = {
    "storefront-api": PYTHON_WEB,
    "platform-api": PYTHON_WEB,
    "billing-service": GO,
    "web-dashboard": TS_WEB,
    "checkout-web": TS_WEB,
    "mobile-app": MOBILE,
    "data-pipeline": DATA_VOCAB,
    "ml-platform": ML,
    "infra": INFRA,
    "search-service": GO,
    "admin-portal": TS_WEB,
    "analytics-jobs": DATA_VOCAB,
    "payments-gateway": GO,
    "docs-site": TS_WEB,
    "feature-store": ML,
    "notification-service": GO,
    "warehouse-ops": PYTHON_WEB,
    "identity-service": PYTHON_WEB,
    "rider-app": MOBILE,
    "cluster-config": INFRA,
    "inventory-service": PYTHON_WEB,
    "video-transcoder": GO,
    "design-system": TS_WEB,
    "ledger-service": PYTHON_WEB,
    "reporting-etl": DATA_VOCAB,
    "edge-proxy": INFRA,
    "release-cli": GO,
    "browser-extension": TS_WEB,
    "support-bot": PYTHON_WEB,
    "sensor-firmware": GO,  # heldout7 (consolidation_heldout7.py)
    "match-server": GO,
    "reverb-plugin": MOBILE,
    "craft-market": PYTHON_WEB,  # supersession heldout3 (consolidation_rules_heldout3.py)
    "lakehouse-spark": DATA_VOCAB,
    "newsroom-cms": TS_WEB,
}

PROMPTS = (
    "the {feature} broke after yesterday's merge, can you check {file}?",
    "add a test for {symbol} that covers the empty case",
    "refactor {symbol} in {file}, it does three things at once",
    "why does {test} fail on CI but pass on my machine?",
    "rename {symbol} to something clearer, it's also used in {file}",
    "explain what {file} does, I haven't worked on it before",
    "the {feature} feels slow, profile it and tell me where the time goes",
    "bump {dep} to the latest patch release and run the tests",
    "there's a TODO in {file} about the {feature}, let's just do it",
    "review my changes in {file} before I open the PR",
    "split {file} into smaller modules, it keeps growing",
    "{symbol} isn't called anywhere anymore, delete it and whatever only it used",
    "open a draft PR for the {feature} work with a short description",
    "write a docstring for {symbol}, {person} asked what it returns",
    "can you find every caller of {symbol}?",
    "start on the {feature}: read {file} first and propose a plan",
    "{test} is flaky, look at it and tell me if it's the test or the code",
    "fix the type errors in {file}",
)
NOTES = (
    "{feature}: the bug was an off-by-one in {symbol}, fixed and covered by {test}",
    "TODO: the {feature} still needs an empty state design from {person}",
    "{person} wants the {feature} behind a beta flag until the end of the quarter",
    "{symbol} is called from two places; the one in {file} passes None on purpose",
    "paired with {person} on the {feature}, next step is wiring {symbol} into {file}",
    "the {feature} ticket is blocked on {person}'s review",
)
DECISIONS = (
    "Keep {symbol} private to {file}; nothing outside should call it.",
    "We ship the {feature} without the export button for now.",
    "The {feature} stays out of this release; {person} will pick it up next sprint.",
    "{symbol} keeps its current signature until the {feature} lands.",
)


def _fill(template: str, vocab: Vocab, rng: random.Random) -> str:
    return template.format(
        file=rng.choice(vocab.files),
        symbol=rng.choice(vocab.symbols),
        feature=rng.choice(vocab.features),
        test=rng.choice(vocab.tests),
        dep=rng.choice(vocab.deps),
        person=rng.choice(vocab.people),
    )


def _observation(vocab: Vocab, rng: random.Random) -> str:
    kind = rng.randrange(5)
    if kind == 0:
        return f"Read {rng.choice(vocab.files)} ({rng.randint(40, 900)} lines)"
    if kind == 1:
        edit = rng.choice(vocab.edits).format(symbol=rng.choice(vocab.symbols))
        return f"Edit {rng.choice(vocab.files)}: {edit}"
    if kind == 2:
        command, output = rng.choice(vocab.runs)
        return f"Bash: {command}\n{output}"
    if kind == 3:
        return (
            f"Grep '{rng.choice(vocab.symbols).split('.')[-1]}': {rng.randint(2, 30)} matches in "
            f"{rng.randint(1, 9)} files"
        )
    branch = f"{rng.choice(('fix', 'feat', 'chore'))}/{rng.choice(vocab.features).replace(' ', '-')}"
    return f"Bash: git checkout -b {branch}\nSwitched to a new branch '{branch}'"


class _Filler:
    """Unique filler memories for a repo: a new text each call (retries on a repeat)."""

    def __init__(self, repo: str, rng: random.Random, seen: set[str]) -> None:
        self.vocab, self.rng, self.seen = VOCAB[repo], rng, seen

    def _unique(self, make: Any) -> str:
        for attempt in range(200):
            text: str = make()
            if attempt > 100:
                text = f"{text} ({self.rng.choice(('again', 'second pass', 'follow-up', 'still'))})"
            if text not in self.seen:
                self.seen.add(text)
                return text
        raise RuntimeError("filler vocabulary exhausted")

    def prompt(self) -> Said:
        return "prompt", self._unique(lambda: _fill(self.rng.choice(PROMPTS), self.vocab, self.rng))

    def observation(self) -> Said:
        return "observation", self._unique(lambda: _observation(self.vocab, self.rng))

    def aside(self) -> Said:
        if self.rng.random() < 0.6:
            return "note", self._unique(lambda: _fill(self.rng.choice(NOTES), self.vocab, self.rng))
        return "decision", self._unique(lambda: _fill(self.rng.choice(DECISIONS), self.vocab, self.rng))

    def session(self) -> list[Said]:
        """A session's own work: a prompt, tool observations, maybe a note, another prompt."""
        out = [self.prompt()]
        out += [self.observation() for _ in range(self.rng.randint(2, 4))]
        if self.rng.random() < 0.5:
            out.append(self.aside())
        if self.rng.random() < 0.6:
            out.append(self.prompt())
            out += [self.observation() for _ in range(self.rng.randint(1, 2))]
        while len(out) < 5:
            out.append(self.observation())
        return out


# --------------------------------------------------------------------------------------------------
# Layout: sessions over ~90 days, special memories placed in them
# --------------------------------------------------------------------------------------------------


@dataclass
class _Session:
    repo: str
    index: int
    start: datetime
    specials: list[tuple[str, str, Said]]  # (key, role, memory)

    @property
    def sid(self) -> str:
        return f"{self.repo}-s{self.index:03d}"


def _sessions(repo: str, count: int, rng: random.Random) -> list[_Session]:
    starts = sorted(START + timedelta(minutes=rng.randrange(DAYS * 24 * 60 // 15) * 15) for _ in range(count))
    return [_Session(repo, i, start, []) for i, start in enumerate(starts)]


def _memories(sessions: list[_Session], rng: random.Random, prefix: str) -> list[dict[str, Any]]:
    """Each session's filler with its specials mixed in (never first), minutes apart, in time order."""
    out: list[dict[str, Any]] = []
    seen: set[str] = set()  # no filler text twice, in any repo
    repos = sorted({s.repo for s in sessions})
    fillers = {repo: _Filler(repo, random.Random(f"{prefix}/{repo}"), seen) for repo in repos}
    for session in sorted(sessions, key=lambda s: (s.start, s.repo)):
        items = [("", "filler", said) for said in fillers[session.repo].session()]
        for special in session.specials:
            items.insert(rng.randint(1, len(items)), special)
        at = session.start
        for n, (key, role, (kind, text)) in enumerate(items):
            at += timedelta(minutes=rng.randint(1, 6), seconds=rng.randint(0, 59))
            own = key or f"{prefix}/{session.sid}/filler-{n}"
            out.append(
                {
                    "id": memory_id(own),
                    "key": own,
                    "role": role,
                    "text": text,
                    "type": kind,
                    "repo": session.repo,
                    "session_id": session.sid,
                    "created_at": at.isoformat().replace("+00:00", "Z"),
                }
            )
    out.sort(key=lambda m: (m["created_at"], m["id"]))
    return out


def _place(slots: list[_Session], rng: random.Random, cap: int, after: int = -1, before: int = 10**9) -> int:
    """A random slot index in (after, before) with room left."""
    choices = [i for i in range(len(slots)) if after < i < before and len(slots[i].specials) < cap]
    if not choices:
        raise RuntimeError("no room for a special memory")
    return rng.choice(choices)


_REPO_ORDER = tuple(dict.fromkeys(r.repo for r in RULES))


def _split(index: int, total: int) -> str:
    return "dev" if index < (total + 1) // 2 else "heldout"


def _lay_out(
    slots: list[_Session],
    rules: list[Rule],
    misses: list[NearMiss],
    rng: random.Random,
    split: str | None = None,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Each rule's decision in an early slot and its amendment at least two slots later; each near-miss
    pair in two slots, the first earlier; at most 3 special memories a session."""
    rules_out, near_out = [], []
    half = len(slots) // 2 + 1
    for n, miss in enumerate(misses):
        key = f"sup/{miss.repo}/nearmiss-{n + 1:02d}"
        first = _place(slots, rng, 3, before=len(slots) - 1)
        second = _place(slots, rng, 3, after=first)
        slots[first].specials.append((f"{key}/a", "near_miss", miss.memories[0]))
        slots[second].specials.append((f"{key}/b", "near_miss", miss.memories[1]))
        near_out.append(
            {
                "id": f"{miss.repo}/nearmiss-{n + 1:02d}",
                "repo": miss.repo,
                "split": split or ("dev" if (n + _REPO_ORDER.index(miss.repo)) % 2 == 0 else "heldout"),
                "subjects": list(miss.subjects),
                "memories": [memory_id(f"{key}/a"), memory_id(f"{key}/b")],
                "questions": list(miss.questions),
            }
        )
    for n, rule in enumerate(rules):
        key = f"sup/{rule.repo}/rule-{n + 1:02d}"
        d = _place(slots, rng, 3, before=half)
        a = _place(slots, rng, 3, after=d + 1)
        slots[d].specials.append((f"{key}/decision", "decision", rule.decision))
        slots[a].specials.append((f"{key}/amendment", "amendment", rule.amendment))
        rules_out.append(
            {
                "id": f"{rule.repo}/rule-{n + 1:02d}",
                "subject": rule.subject,
                "repo": rule.repo,
                "split": split or _split(n, len(rules)),
                "decision": memory_id(f"{key}/decision"),
                "amendment": memory_id(f"{key}/amendment"),
                "questions": list(rule.questions),
            }
        )
    return rules_out, near_out


def _repo_layout(
    repo: str,
    all_rules: tuple[Rule, ...],
    all_misses: tuple[NearMiss, ...],
    rng: random.Random,
    sessions_per_repo: int,
    special_sessions: int,
    split: str | None = None,
) -> tuple[list[_Session], tuple[list[dict[str, Any]], list[dict[str, Any]]]]:
    """A repo's sessions with its rules and near misses laid out in them."""
    sessions = _sessions(repo, sessions_per_repo, rng)
    rules = [r for r in all_rules if r.repo == repo]
    misses = [m for m in all_misses if m.repo == repo]
    for _attempt in range(100):  # a layout that leaves room for every special memory
        for session in sessions:
            session.specials.clear()
        slots = sorted(rng.sample(sessions, special_sessions), key=lambda s: s.index)
        try:
            return sessions, _lay_out(slots, rules, misses, rng, split)
        except RuntimeError:
            continue
    raise RuntimeError(f"no layout for {repo}")


def _held_out_layout(
    rules: tuple[Rule, ...],
    misses: tuple[NearMiss, ...],
    seed: int,
    split: str,
    sessions_per_repo: int,
    special_sessions: int,
) -> tuple[list[_Session], list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
    """A held-out split's repos laid out by a generator of their own (so the earlier splits' layout
    does not move): its sessions, rules, near misses and memories."""
    rng = random.Random(seed)
    sessions_out: list[_Session] = []
    rules_out: list[dict[str, Any]] = []
    near_out: list[dict[str, Any]] = []
    for repo in dict.fromkeys(r.repo for r in rules):
        sessions, placed = _repo_layout(repo, rules, misses, rng, sessions_per_repo, special_sessions, split)
        sessions_out += sessions
        rules_out += placed[0]
        near_out += placed[1]
    return sessions_out, rules_out, near_out, _memories(sessions_out, rng, f"sup-{split}")


def build_supersession(seed: int = SEED) -> dict[str, Any]:
    from consolidation_rules_heldout3 import NEAR_MISSES_HELDOUT3, RULES_HELDOUT3  # imports the dataclasses

    rng = random.Random(seed)
    repos = list(dict.fromkeys(r.repo for r in RULES))
    sessions_per_repo, special_sessions = 32, 12
    rules_out: list[dict[str, Any]] = []
    near_out: list[dict[str, Any]] = []
    all_sessions: list[_Session] = []
    for repo in repos:
        sessions, placed = _repo_layout(repo, RULES, NEAR_MISSES, rng, sessions_per_repo, special_sessions)
        all_sessions += sessions
        rules_out += placed[0]
        near_out += placed[1]
    memories = _memories(all_sessions, rng, "sup")
    for held in (
        (RULES_HELDOUT2, NEAR_MISSES_HELDOUT2, seed + 5, "heldout2"),  # the second held-out repos
        (RULES_HELDOUT3, NEAR_MISSES_HELDOUT3, seed + 9, "heldout3"),  # consolidation_rules_heldout3.py
    ):
        sessions, rules, near, held_memories = _held_out_layout(*held, sessions_per_repo, special_sessions)
        all_sessions += sessions
        rules_out += rules
        near_out += near
        memories += held_memories
    memories.sort(key=lambda m: (m["created_at"], m["id"]))
    rules_out.sort(key=lambda r: (r["split"] != "dev", r["id"]))
    near_out.sort(key=lambda r: (r["split"] != "dev", r["id"]))
    return {
        "name": "supersession",
        "generated_by": "benchmarks/consolidation_data.py",
        "seed": seed,
        "sessions": len(all_sessions),
        "sessions_with_rules": sum(bool(s.specials) for s in all_sessions),
        "rules": rules_out,
        "near_misses": near_out,
        "memories": memories,
    }


PREFIXES = ("", "reminder: ", "again, ", "just so you know, ", "fyi ", "heads up: ")
# how many of a fact's sentences a user says in one session, when they come ``together`` (1: one alone)
TOGETHER = ((1, 0.4), (2, 0.35), (3, 0.25))


def _restatements(fact: Fact, rng: random.Random) -> list[Said]:
    """``fact.count`` distinct wordings: stated ones (prompt or note) and some observations."""
    observed_n = max(1, min(len(fact.observed), round(fact.count * 0.25)))
    out: list[Said] = [("observation", text) for text in fact.observed[:observed_n]]
    stated = [p + s for p in PREFIXES for s in fact.stated]  # plain wordings first
    for text in stated[: fact.count - len(out)]:
        out.append(("prompt" if rng.random() < 0.7 else "note", text))
    if len(out) != fact.count:
        raise RuntimeError(f"not enough wordings for {fact.subject}")
    rng.shuffle(out)
    return out


def restatement_claims(fact: Fact) -> dict[str, int]:
    """Each wording ``_restatements`` can make of the fact (a prefixed sentence, an observation) and the
    claim it makes."""
    out = {text: claim for text, claim in zip(fact.observed, fact.observed_claims, strict=True)}
    for sentence, claim in zip(fact.stated, fact.claims, strict=True):
        out.update({prefix + sentence: claim for prefix in PREFIXES})
    return out


def _sentence(said: Said) -> str:
    """The sentence a wording says, without the address a restatement may start with."""
    text = said[1]
    for prefix in PREFIXES[1:]:
        if text.startswith(prefix):
            return text[len(prefix) :]
    return text


def _occasions(said: list[Said], rng: random.Random) -> list[list[Said]]:
    """The wordings grouped into the sessions that say them: 1 to 3 each (``TOGETHER``), never the same
    sentence twice in one session (a user explaining a convention again says several of its sentences,
    not one sentence twice)."""
    pool, out = list(said), []
    sizes, weights = zip(*TOGETHER, strict=True)
    while pool:
        size = rng.choices(sizes, weights)[0]
        group = [pool.pop(0)]
        for wording in list(pool):
            if len(group) >= size:
                break
            if _sentence(wording) not in {_sentence(w) for w in group}:
                group.append(wording)
                pool.remove(wording)
        out.append(group)
    return out


def _duplicate_split(
    facts: tuple[Fact, ...],
    similar: tuple[Similar, ...],
    split: str,
    rng: random.Random,
    prefix: str,
    *,
    together: bool = False,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]], int]:
    """One split's facts, similar memories and memories laid out in 30 sessions a repo, and the
    session count. ``together``: a session may hold up to three of a fact's wordings (``_occasions``);
    otherwise each wording has a session of its own."""
    repos = list(dict.fromkeys(f.repo for f in facts))
    facts_out: list[dict[str, Any]] = []
    similar_out: list[dict[str, Any]] = []
    all_sessions: list[_Session] = []
    for repo in repos:
        sessions = _sessions(repo, 30, rng)
        all_sessions += sessions
        for n, fact in enumerate(f for f in facts if f.repo == repo):
            key = f"dup/{repo}/fact-{n + 1:02d}"
            if together:
                occasions = _occasions(_restatements(fact, rng), rng)
                hosts = rng.sample(sessions, len(occasions))
            else:  # the sessions first, as the splits written before ``together`` were laid out
                hosts = rng.sample(sessions, fact.count)
                occasions = [[said] for said in _restatements(fact, rng)]
            ids, claims, claim_of = [], {}, restatement_claims(fact)
            said_in = [(host, said) for host, group in zip(hosts, occasions, strict=True) for said in group]
            for m, (host, said) in enumerate(said_in):
                host.specials.append((f"{key}/restatement-{m + 1:02d}", "restatement", said))
                ids.append(memory_id(f"{key}/restatement-{m + 1:02d}"))
                claims[ids[-1]] = claim_of[said[1]]
            facts_out.append(
                {
                    "id": f"{repo}/fact-{n + 1:02d}",
                    "subject": fact.subject,
                    "repo": repo,
                    "split": split,
                    "restatements": ids,
                    "claims": claims,  # restatement id: the claim it makes (0, 1, ... within the fact)
                    "questions": list(fact.questions),
                }
            )
        for n, near in enumerate(s for s in similar if s.repo == repo):
            key = f"dup/{repo}/similar-{n + 1:02d}"
            rng.choice(sessions).specials.append((f"{key}/memory", "similar", near.memory))
            fact_id = next(f["id"] for f in facts_out if f["subject"] == near.fact)
            similar_out.append(
                {
                    "id": f"{repo}/similar-{n + 1:02d}",
                    "repo": repo,
                    "split": split,
                    "resembles": fact_id,
                    "memory": memory_id(f"{key}/memory"),
                    "question": near.question,
                }
            )
    return facts_out, similar_out, _memories(all_sessions, rng, prefix), len(all_sessions)


def build_duplicates(seed: int = SEED) -> dict[str, Any]:
    """Dev facts (``FACTS``, read while tuning) and held-out facts (``FACTS_HELDOUT``, in repos of their
    own, laid out by a generator of their own so the dev layout does not move)."""
    from consolidation_heldout7 import FACTS_HELDOUT7, SIMILAR_HELDOUT7  # imports this module's dataclasses

    dev = _duplicate_split(FACTS, SIMILAR, "dev", random.Random(seed + 1), "dup")
    held = _duplicate_split(FACTS_HELDOUT, SIMILAR_HELDOUT, "heldout", random.Random(seed + 2), "dup-heldout")
    held2 = _duplicate_split(
        FACTS_HELDOUT2, SIMILAR_HELDOUT2, "heldout2", random.Random(seed + 3), "dup-heldout2"
    )
    held3 = _duplicate_split(
        FACTS_HELDOUT3, SIMILAR_HELDOUT3, "heldout3", random.Random(seed + 4), "dup-heldout3"
    )
    held4 = _duplicate_split(
        FACTS_HELDOUT4, SIMILAR_HELDOUT4, "heldout4", random.Random(seed + 5), "dup-heldout4"
    )
    held5 = _duplicate_split(
        FACTS_HELDOUT5, SIMILAR_HELDOUT5, "heldout5", random.Random(seed + 6), "dup-heldout5"
    )
    held6 = _duplicate_split(
        FACTS_HELDOUT6,
        SIMILAR_HELDOUT6,
        "heldout6",
        random.Random(seed + 7),
        "dup-heldout6",
        together=True,
    )
    held7 = _duplicate_split(
        FACTS_HELDOUT7,
        SIMILAR_HELDOUT7,
        "heldout7",
        random.Random(seed + 8),
        "dup-heldout7",
        together=True,
    )
    splits = (dev, held, held2, held3, held4, held5, held6, held7)
    memories = sorted((m for split in splits for m in split[2]), key=lambda m: (m["created_at"], m["id"]))
    return {
        "name": "duplicates",
        "generated_by": "benchmarks/consolidation_data.py",
        "seed": seed,
        "sessions": sum(split[3] for split in splits),
        "facts": [f for split in splits for f in split[0]],
        "similar": [m for split in splits for m in split[1]],
        "memories": memories,
    }


def render(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


def main() -> None:
    for path, data in ((SUPERSESSION_PATH, build_supersession()), (DUPLICATES_PATH, build_duplicates())):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(render(data))
        print(f"{path}: {len(data['memories'])} memories, {data['sessions']} sessions")


if __name__ == "__main__":
    main()
