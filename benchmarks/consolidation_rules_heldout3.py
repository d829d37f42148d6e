"""The supersession set's third held-out split ("heldout3"): 12 rules, each decided in one session and amended
in a later one, and 6 near-miss pairs, in three repos of kinds not used before (a Ruby on Rails marketplace, a
Scala/Spark data platform, a PHP/Laravel newsroom CMS). Written before any change of the session that added
it; ``consolidation_data.build_supersession`` imports it and lays it out like heldout2, with a generator of
its own.
"""

from __future__ import annotations

from consolidation_data import NearMiss, Rule

# craft-market: a Ruby on Rails marketplace for handmade goods (Postgres, Stripe Connect). lakehouse-spark:
# Scala Spark jobs on Databricks that build the company's data lake. newsroom-cms: a PHP (Laravel) CMS the
# editors of a news site publish with. Amendments vary: a change cue, only the new value, the old value
# named, a reason.
RULES_HELDOUT3: tuple[Rule, ...] = (
    Rule(
        "craft-market",
        "seller payout schedule",
        (
            "decision",
            "Sellers are paid out once a week, on Fridays, through Stripe Connect for every order delivered "
            "by the previous Sunday.",
        ),
        ("decision", "Seller payouts run every day, for orders delivered at least 7 days earlier."),
        ("How often are sellers paid out?", "When does a seller get the money for a delivered order?"),
    ),
    Rule(
        "craft-market",
        "background job backend",
        (
            "prompt",
            "put the new mailers and the image resizing on Sidekiq, redis is already there for the cache",
        ),
        (
            "prompt",
            "drop Sidekiq, we're on Rails 8 so ActiveJob goes through Solid Queue in Postgres and we can "
            "retire the job redis",
        ),
        ("Which backend runs our background jobs?", "What should a new ActiveJob be queued on?"),
    ),
    Rule(
        "craft-market",
        "marketplace commission",
        ("decision", "The platform takes a 10% commission on every sale, shipping excluded."),
        (
            "decision",
            "Commission is 12% of the sale from March 1 to pay for the buyer protection program; shipping "
            "stays out of it.",
        ),
        ("What commission does the marketplace take on a sale?",),
    ),
    Rule(
        "craft-market",
        "test framework for new tests",
        ("prompt", "write the new tests in minitest, it comes with rails and we don't need another DSL"),
        (
            "prompt",
            "from now on new specs are RSpec with factory_bot. leave the old minitest files alone until we "
            "port them",
        ),
        ("Which test framework should new tests in the Rails app use?",),
    ),
    Rule(
        "lakehouse-spark",
        "Scala version",
        ("decision", "The Spark jobs are built with Scala 2.12, the version our Databricks runtime ships."),
        (
            "prompt",
            "bump scalaVersion to 2.13 in build.sbt, the 15.4 runtime supports it and the 2.12 builds are "
            "holding back the json library",
        ),
        ("Which Scala version do the Spark jobs compile against?",),
    ),
    Rule(
        "lakehouse-spark",
        "curated table format",
        (
            "decision",
            "Curated tables are written as Parquet, partitioned by event_date, under s3://lake/curated/.",
        ),
        (
            "decision",
            "Curated tables are Delta tables now, so a job can MERGE late events instead of rewriting the "
            "whole partition.",
        ),
        ("What format are the curated tables stored in?", "How should a job write into a curated table?"),
    ),
    Rule(
        "lakehouse-spark",
        "default shuffle partitions",
        (
            "prompt",
            "set spark.sql.shuffle.partitions to 400 in conf/defaults.conf, with 200 the big joins spill to "
            "disk",
        ),
        ("decision", "Jobs start from 1600 shuffle partitions and AQE coalesces the small ones at runtime."),
        ("How many shuffle partitions do our Spark jobs use by default?",),
    ),
    Rule(
        "lakehouse-spark",
        "job scheduler",
        ("decision", "Nightly Spark jobs are scheduled by Airflow DAGs in the orchestration repo."),
        (
            "prompt",
            "we're moving the nightly jobs from Airflow to Databricks Workflows, put a new job's schedule in "
            "the workflow.yml next to its code",
        ),
        ("Where are the nightly Spark jobs scheduled?", "How do I give a new nightly job its schedule?"),
    ),
    Rule(
        "newsroom-cms",
        "article URL format",
        ("decision", "Article URLs are /news/{id}-{slug}, with the slug cut at 60 characters."),
        (
            "prompt",
            "article URLs no longer carry the id: /{section}/{yyyy}/{mm}/{slug}, and 301 the old ones. SEO "
            "asked for it",
        ),
        ("What URL format do article pages use?",),
    ),
    Rule(
        "newsroom-cms",
        "image upload storage",
        (
            "prompt",
            "store uploaded images on the local public disk, php artisan storage:link already runs in the "
            "deploy script",
        ),
        (
            "prompt",
            "switch the media uploads to the s3 disk behind CloudFront, with two web servers behind the load "
            "balancer a local file only exists on one of them",
        ),
        ("Where are uploaded images stored?", "Which filesystem disk should the upload controller use?"),
    ),
    Rule(
        "newsroom-cms",
        "editor session lifetime",
        ("decision", "Editor sessions expire after 2 hours of inactivity (SESSION_LIFETIME=120)."),
        ("prompt", "an editor login lasts 12 hours, SESSION_LIFETIME=720 in the production env"),
        ("How long does an editor stay logged in?",),
    ),
    Rule(
        "newsroom-cms",
        "PHPStan level",
        (
            "prompt",
            "run PHPStan at level 5 in CI, anything stricter drowns us in errors from the legacy code",
        ),
        (
            "decision",
            "CI runs PHPStan at level 8 instead, with the existing errors frozen in phpstan-baseline.neon so "
            "only changed code has to pass.",
        ),
        ("What PHPStan level does CI run?",),
    ),
)

NEAR_MISSES_HELDOUT3: tuple[NearMiss, ...] = (
    NearMiss(
        "craft-market",
        ("listing photo limit", "review photo limit"),
        (
            ("decision", "A listing can have at most 10 photos, each up to 8 MB."),
            ("decision", "Buyers can attach up to 3 photos to a review, resized to 1200 px on upload."),
        ),
        ("How many photos can a listing have?", "How many photos can a buyer attach to a review?"),
    ),
    NearMiss(
        "craft-market",
        ("buyer cancellation window", "seller dispatch deadline"),
        (
            ("decision", "Buyers can cancel an order themselves within 1 hour of paying."),
            (
                "prompt",
                "sellers now get 3 business days to mark an order dispatched, after that the order is "
                "cancelled and the buyer refunded",
            ),
        ),
        (
            "How long does a buyer have to cancel an order on their own?",
            "How long does a seller have to dispatch an order?",
        ),
    ),
    NearMiss(
        "lakehouse-spark",
        ("driver memory", "executor memory"),
        (
            (
                "prompt",
                "give the Spark driver 8g of memory, collect() on the big dimension tables kept running it "
                "out of heap",
            ),
            (
                "prompt",
                "executors get 16g and 4 cores each, plus 2g memoryOverhead for the new UDF-heavy jobs",
            ),
        ),
        ("How much memory does the Spark driver get?", "How much memory does each executor get?"),
    ),
    NearMiss(
        "lakehouse-spark",
        ("raw landing retention", "quarantine retention"),
        (
            ("decision", "Raw landing files are kept for 30 days, then an S3 lifecycle rule deletes them."),
            (
                "decision",
                "Records that fail schema validation go to the quarantine bucket and are kept for 90 days.",
            ),
        ),
        ("How long are raw landing files kept?", "How long are records that fail schema validation kept?"),
    ),
    NearMiss(
        "newsroom-cms",
        ("article page cache", "homepage cache"),
        (
            (
                "decision",
                "Article pages are cached for 10 minutes in Redis and purged when the article is saved.",
            ),
            ("decision", "The homepage is cached for 60 seconds so breaking news shows up fast."),
        ),
        ("How long are article pages cached?", "How long is the homepage cached?"),
    ),
    NearMiss(
        "newsroom-cms",
        ("headline length", "push alert length"),
        (
            ("prompt", "cap headlines at 90 characters in the editor, the mobile cards cut anything longer"),
            ("prompt", "push alert text can be 110 characters now that the new app shows two lines"),
        ),
        ("How long can a headline be?", "How long can the text of a push alert be?"),
    ),
)
