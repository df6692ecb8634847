"""Settings, all driven by the environment.

Defaults need no services (SQLite and a filesystem broker under ``var/``), so a
fresh clone runs with one command. Production sets ``DATABASE_URL``,
``REDIS_URL``, ``SECRET_KEY`` and ``DEBUG=0``. docs/configuration.md lists every
variable.
"""

from __future__ import annotations

import os
import posixpath
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent


def env_str(name: str, default: str = "") -> str:
    """The variable's value with surrounding spaces removed, or ``default`` when unset."""
    return os.environ.get(name, default).strip()


def env_bool(name: str, default: bool) -> bool:
    """1/0, true/false, yes/no, on/off (any case); empty or unset means ``default``; anything else is an error."""
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    value = raw.strip().lower()
    if value in {"1", "true", "yes", "on"}:
        return True
    if value in {"0", "false", "no", "off"}:
        return False
    raise ImproperlyConfigured(f"{name}={raw!r} is not a boolean (use 1/0, true/false, yes/no, on/off).")


def env_int(name: str, default: int) -> int:
    """An integer; empty or unset means ``default``; anything else is an error."""
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        return int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r} is not an integer.") from None


def env_list(name: str, default: list[str]) -> list[str]:
    """A comma-separated list with empty items dropped; empty or unset means ``default``."""
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


def env_path(name: str, default: Path) -> Path:
    """An absolute path (relative values are resolved against the current folder); unset means ``default``."""
    raw = env_str(name)
    return Path(raw).resolve() if raw else default


# pytest (8.2+) sets PYTEST_VERSION for the whole run. Under test, every piece of
# local state goes to a per-process folder so parallel runs never share a broker
# queue, a SQLite file or uploaded files. Worker processes started by tests get
# explicit paths through the variables below.
TESTING = "PYTEST_VERSION" in os.environ
VAR_DIR = env_path("VAR_DIR", BASE_DIR / "var" / (f"test-{os.getpid()}" if TESTING else ""))
# Under `pytest -n` (pytest-xdist) the worker's name, gw0, gw1, ...: services shared by the
# workers (Redis, a bucket) get a part of their own below. Processes a test starts get the
# resulting URLs from tests/conftest.py (process_env) or derive the same ones.
TEST_WORKER = os.environ.get("PYTEST_XDIST_WORKER", "") if TESTING else ""

DEFAULT_SECRET_KEY = "insecure-development-key-do-not-use-in-production"
SECRET_KEY = env_str("SECRET_KEY", DEFAULT_SECRET_KEY)
DEBUG = env_bool("DEBUG", True)
# Django's own bar for a key (check --deploy, security.W009): 50 characters, 5 different ones.
SECRET_KEY_MIN_LENGTH, SECRET_KEY_MIN_UNIQUE = 50, 5
if not DEBUG and not TESTING:
    if SECRET_KEY == DEFAULT_SECRET_KEY:
        raise ImproperlyConfigured("Refusing to start with DEBUG off and the default SECRET_KEY: set SECRET_KEY.")
    if (
        len(SECRET_KEY) < SECRET_KEY_MIN_LENGTH
        or len(set(SECRET_KEY)) < SECRET_KEY_MIN_UNIQUE
        or SECRET_KEY.startswith("django-insecure-")
    ):
        raise ImproperlyConfigured(
            f"Refusing to start with DEBUG off and a weak SECRET_KEY ({len(SECRET_KEY)} characters, "
            f"{len(set(SECRET_KEY))} different): use at least {SECRET_KEY_MIN_LENGTH} characters, "
            f"{SECRET_KEY_MIN_UNIQUE} of them different, e.g. "
            "python -c 'import secrets; print(secrets.token_urlsafe(50))'."
        )

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])
SITE_URL = env_str("SITE_URL", "http://127.0.0.1:8000")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "leaderboard.accounts",
    "leaderboard.challenges",
    "leaderboard.submissions",
    "leaderboard.literature",
    "leaderboard.boards",
    "leaderboard.kinds",
    "leaderboard.ops",
    "leaderboard.organize",
    "leaderboard.drugs",
    "leaderboard.methods",
    "leaderboard.api",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
]

MIDDLEWARE = [
    # First: forwarded headers from anyone but a trusted proxy are dropped before anything reads them.
    "leaderboard.middleware.ClientAddressMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # whitenoise, serving collected (compressed) copies in DEBUG too: leaderboard/ops/staticfiles.py.
    "leaderboard.ops.staticfiles.StaticFilesMiddleware",
    "leaderboard.middleware.ContentSecurityPolicyMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # After authentication (it counts per user), before any view parses a body.
    "leaderboard.submissions.uploads.UploadSlotsMiddleware",
    "leaderboard.errors.RefuseNulCharactersMiddleware",
    # The API's RateLimit-* headers, from what its throttle counted for the request.
    "leaderboard.api.throttling.RateLimitHeadersMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Innermost, so the pages it puts in place of DEBUG's technical ones pass the others (CSRF, messages).
    "leaderboard.errors.SiteErrorPagesMiddleware",
]

ROOT_URLCONF = "leaderboard.urls"
WSGI_APPLICATION = "leaderboard.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "leaderboard.accounts.context_processors.pending_invitations",
            ],
        },
    },
]

# Database: SQLite under var/ unless DATABASE_URL says otherwise.
DATABASES = {
    "default": dj_database_url.parse(
        env_str("DATABASE_URL", f"sqlite:///{VAR_DIR / 'db.sqlite3'}"),
        conn_max_age=env_int("DB_CONN_MAX_AGE", 60),
        # A kept connection the server dropped (a restart, a failover, an idle timeout) is checked and
        # replaced when a request starts, instead of failing that request with a 500.
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # A file, not memory, so that worker processes started by tests see the same rows.
    DATABASES["default"]["TEST"] = {"NAME": str(VAR_DIR / "test.sqlite3")}
    # Wait for the writer lock instead of failing at once when web and worker write together.
    DATABASES["default"].setdefault("OPTIONS", {})["timeout"] = 20
    # Take the write lock when a transaction begins, so web and worker queue for it
    # instead of failing with "database is locked" when a reader upgrades to a writer.
    DATABASES["default"]["OPTIONS"]["transaction_mode"] = "IMMEDIATE"
    DATABASES["default"]["CONN_MAX_AGE"] = 0

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
AUTH_USER_MODEL = "accounts.User"
# The demo user (make run) cannot log in with DEBUG off, even if its row was deployed.
AUTHENTICATION_BACKENDS = ["leaderboard.ops.backends.DemoOnlyInDevelopment"]
# URL names, resolved by Django when used.
LOGIN_URL = "accounts:login"
LOGIN_REDIRECT_URL = "accounts:profile"
LOGOUT_REDIRECT_URL = "home"

if TESTING:
    # Hashing with PBKDF2's full work factor costs ~0.2 s per user: far too slow for the cast in every test.
    PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

# Static files: collected into var/static and served by whitenoise (plotly.js included).
STATIC_URL = "/static/"
# docs/ too, under the docs/ prefix: the documentation pages' screenshots and example files.
STATICFILES_DIRS = [BASE_DIR / "static", ("docs", BASE_DIR / "docs")]
STATICFILES_FINDERS = [
    "django.contrib.staticfiles.finders.FileSystemFinder",
    "django.contrib.staticfiles.finders.AppDirectoriesFinder",
    # plotly.min.js straight from the installed plotly package: {% static 'vendor/plotly/plotly.min.js' %}.
    "leaderboard.ops.staticfiles.PlotlyFinder",
]
STATIC_ROOT = env_path("STATIC_ROOT", BASE_DIR / "var" / "static")
if TESTING:
    # Tests never collect static files into the shared folder; whitenoise wants the folder to exist.
    STATIC_ROOT = VAR_DIR / "static"
    STATIC_ROOT.mkdir(parents=True, exist_ok=True)

# Uploaded files. MEDIA_ROOT is for public files; PRIVATE_STORAGE_ROOT holds what
# must never be served directly (uploaded submissions, hidden test labels).
MEDIA_URL = "/media/"
MEDIA_ROOT = env_path("MEDIA_ROOT", VAR_DIR / "media")
PRIVATE_STORAGE_ROOT = env_path("PRIVATE_STORAGE_ROOT", VAR_DIR / "private")
# STORAGE_URL=s3://bucket/prefix puts every stored file in an S3-compatible bucket instead,
# so web and workers on different machines share nothing on disk. Credentials come from
# boto3's usual chain (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, or an instance role).
STORAGE_URL = env_str("STORAGE_URL")
if TESTING and STORAGE_URL and TEST_WORKER:
    # Parallel test processes number their rows alike (each has its own database): their files
    # go under a prefix of their own in the bucket.
    STORAGE_URL = f"{STORAGE_URL.rstrip('/')}/{TEST_WORKER}"
AWS_S3_ENDPOINT_URL = env_str("AWS_S3_ENDPOINT_URL")
AWS_S3_REGION_NAME = env_str("AWS_S3_REGION_NAME", env_str("AWS_DEFAULT_REGION"))
AWS_S3_ADDRESSING_STYLE = env_str("AWS_S3_ADDRESSING_STYLE", "path" if AWS_S3_ENDPOINT_URL else "")
# Lifetime of a signed download link (leaderboard.storage); our views stream files instead.
AWS_QUERYSTRING_EXPIRE = env_int("AWS_QUERYSTRING_EXPIRE", 300)


def file_storages(storage_url: str, private_root: Path) -> dict[str, dict]:
    """The "default" and "private" entries of STORAGES for a STORAGE_URL ("" = local folders)."""
    if not storage_url:
        return {
            "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
            "private": {
                "BACKEND": "django.core.files.storage.FileSystemStorage",
                "OPTIONS": {"location": str(private_root), "base_url": None},
            },
        }
    scheme, _, rest = storage_url.partition("://")
    bucket, _, prefix = rest.partition("/")
    if scheme != "s3" or not bucket:
        raise ImproperlyConfigured(f"STORAGE_URL={storage_url!r} is not s3://bucket[/prefix].")
    prefix = prefix.strip("/")

    def s3(location: str) -> dict:
        options = {
            "bucket_name": bucket,
            "location": posixpath.join(prefix, location),
            "endpoint_url": AWS_S3_ENDPOINT_URL or None,
            "region_name": AWS_S3_REGION_NAME or None,
            "addressing_style": AWS_S3_ADDRESSING_STYLE or None,
            "querystring_expire": AWS_QUERYSTRING_EXPIRE,
        }
        return {"BACKEND": "leaderboard.s3storage.PrivateS3Storage", "OPTIONS": options}

    # Even "default" (generated files) is private: nothing in the bucket is public-read.
    return {"default": s3("media"), "private": s3("private")}


STORAGES = {
    **file_storages(STORAGE_URL, PRIVATE_STORAGE_ROOT),
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if TESTING
            # DEBUG (make run): plain names, so no manifest to keep in step, but collectstatic
            # writes .gz copies that whitenoise serves (plotly.js: 4.8 MB -> 1.4 MB).
            else "whitenoise.storage.CompressedStaticFilesStorage"
            if DEBUG
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        )
    },
}

# Redis serves as cache and broker when REDIS_URL is set.
REDIS_URL = env_str("REDIS_URL")
if TESTING and REDIS_URL and TEST_WORKER:
    # Parallel test processes never share a queue or a cache: each takes the Redis database
    # after REDIS_URL's by its number (gw0 -> db + 1, gw1 -> db + 2).
    _redis = urlsplit(REDIS_URL)
    _redis_db = int(_redis.path.strip("/") or 0) + 1 + int(TEST_WORKER.removeprefix("gw"))
    REDIS_URL = urlunsplit(_redis._replace(path=f"/{_redis_db}"))
if REDIS_URL:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL}}
else:
    # A file cache is shared by the web server and the worker, which invalidates it.
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
            "LOCATION": str(env_path("CACHE_DIR", VAR_DIR / "cache")),
        }
    }

# Celery. Without a broker URL, kombu's filesystem transport under var/ needs no
# server process; a real worker consumes it.
CELERY_FS_DIR = env_path("CELERY_FS_DIR", VAR_DIR / "broker")
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL", REDIS_URL or "filesystem://")
if CELERY_BROKER_URL.startswith("filesystem://"):
    # kombu's transport with atomic writes and unreadable messages moved aside (never fatal).
    CELERY_BROKER_TRANSPORT = "leaderboard.ops.fsbroker:Transport"
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(CELERY_FS_DIR / "queue"),
        "data_folder_out": str(CELERY_FS_DIR / "queue"),
        "control_folder": str(CELERY_FS_DIR / "control"),
        "store_processed": False,
        # The default is one poll a second; a tenth keeps upload-to-scored latency low.
        "polling_interval": 0.1,
    }
    for _folder in ("queue", "control"):
        (CELERY_FS_DIR / _folder).mkdir(parents=True, exist_ok=True)
else:
    # Redis redelivers an unacknowledged message after this many seconds; it must
    # exceed the longest task so acks_late never causes a second concurrent run.
    CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 3600}
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_IGNORE_RESULT = True  # the database row, not a result backend, holds the outcome
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SOFT_TIME_LIMIT = env_int("CELERY_TASK_SOFT_TIME_LIMIT", 600)
CELERY_TASK_TIME_LIMIT = env_int("CELERY_TASK_TIME_LIMIT", 660)
CELERY_TIMEZONE = "UTC"
# Queues by job (docs/deploy.md "Queues"): scoring never waits behind board work. Scoring workers
# consume only the two scoring queues (uploads above SCORING_LARGE_UPLOAD_BYTES, and gzip ones, go to
# the second, so a run of big files cannot hold small ones: docs/deploy.md); every other job
# (boards, statistics, e-mail, cache, chores) goes to the background queue. A worker started
# without -Q consumes all three (tests, a one-process trial).
SCORING_QUEUE = "scoring"
SCORING_LARGE_QUEUE = "scoring-large"
BACKGROUND_QUEUE = "background"
SCORING_LARGE_UPLOAD_BYTES = env_int("SCORING_LARGE_UPLOAD_BYTES", 1024 * 1024)
CELERY_TASK_DEFAULT_QUEUE = BACKGROUND_QUEUE
CELERY_TASK_QUEUES = {name: {"routing_key": name} for name in (SCORING_QUEUE, SCORING_LARGE_QUEUE, BACKGROUND_QUEUE)}
# queueing.enqueue sends to the row's scoring_queue; this route covers any other sender of the task.
CELERY_TASK_ROUTES = {"submissions.score_submission": {"queue": SCORING_QUEUE}}
# A burst of scores on one phase becomes one board refresh: the refresh waits this long for more.
BOARD_REFRESH_DELAY_SECONDS = env_int("BOARD_REFRESH_DELAY_SECONDS", 2)
# Apps add their periodic jobs in AppConfig.ready() with leaderboard.celery.register_periodic_task().
CELERY_BEAT_SCHEDULE: dict = {}
CELERY_BEAT_SCHEDULE_FILENAME = str(VAR_DIR / "celerybeat-schedule")
# How often beat sends the worker heartbeat that /healthz reports (seconds).
OPS_HEARTBEAT_SECONDS = env_int("OPS_HEARTBEAT_SECONDS", 60)
# /healthz says "degraded" (docs/operations.md) when a queue's newest worker heartbeat is older than
# this, or the oldest queued submission has waited longer than HEALTH_MAX_QUEUE_WAIT_SECONDS; it
# answers HEALTH_DEGRADED_STATUS then (200 by default: a web node is fine while workers lag).
HEALTH_MAX_HEARTBEAT_AGE_SECONDS = env_int("HEALTH_MAX_HEARTBEAT_AGE_SECONDS", 3 * OPS_HEARTBEAT_SECONDS)
HEALTH_MAX_QUEUE_WAIT_SECONDS = env_int("HEALTH_MAX_QUEUE_WAIT_SECONDS", 300)
HEALTH_DEGRADED_STATUS = env_int("HEALTH_DEGRADED_STATUS", 200)

# Email: the console by default, SMTP when EMAIL_HOST is set.
EMAIL_HOST = env_str("EMAIL_HOST")
EMAIL_BACKEND = env_str(
    "EMAIL_BACKEND",
    "django.core.mail.backends.smtp.EmailBackend" if EMAIL_HOST else "django.core.mail.backends.console.EmailBackend",
)
EMAIL_PORT = env_int("EMAIL_PORT", 587)
EMAIL_HOST_USER = env_str("EMAIL_HOST_USER")
EMAIL_HOST_PASSWORD = env_str("EMAIL_HOST_PASSWORD")
EMAIL_USE_SSL = env_bool("EMAIL_USE_SSL", False)
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", not EMAIL_USE_SSL)
EMAIL_TIMEOUT = env_int("EMAIL_TIMEOUT", 10)
if EMAIL_USE_TLS and EMAIL_USE_SSL:
    raise ImproperlyConfigured("Set at most one of EMAIL_USE_TLS and EMAIL_USE_SSL (port 465 usually means SSL).")
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "DDI Leaderboard <noreply@localhost>")
# Whom a researcher asks on the standing benchmarks (to move their submissions to another team, say);
# "Name <address>" or an address. Organized challenges name their own organizers instead.
BOARD_CONTACT = env_str("BOARD_CONTACT", "The DDI Leaderboard maintainers <leaderboard@localhost>")

# Where ../shared (benchmark data) is; importers and tests read from it.
SHARED_DATA_DIR = env_path("LEADERBOARD_SHARED_DIR", (BASE_DIR.parent / "shared").resolve())

# Submissions.
SUBMISSION_MAX_BYTES = env_int("SUBMISSION_MAX_BYTES", 200 * 1024 * 1024)
# Uploads up to this size, compressed AND uncompressed, and up to this many rows are validated in
# the request; the web process stops reading past either bound and leaves the file to the worker.
SUBMISSION_INLINE_VALIDATION_BYTES = env_int("SUBMISSION_INLINE_VALIDATION_BYTES", 20 * 1024 * 1024)
SUBMISSION_INLINE_VALIDATION_ROWS = env_int("SUBMISSION_INLINE_VALIDATION_ROWS", 500_000)
# Invalid files cost no quota, but the worker seconds they take count against this daily (UTC) budget
# per account; past it, uploads are refused until midnight UTC.
SUBMISSION_INVALID_WORKER_SECONDS_PER_DAY = env_int("SUBMISSION_INVALID_WORKER_SECONDS_PER_DAY", 300)
# The worker stops reading an upload (decompressing as it goes) past this many bytes per cell a full
# prediction file of the phase can hold (test rows x seeds x every column the task takes; at least
# SUBMISSION_MIN_READ_BYTES, at most SUBMISSION_MAX_BYTES): no valid prediction file is that large
# (an 86-class ImDrug file has 90 columns, MUDI's 4), and a small gzip bomb fails in seconds.
SUBMISSION_MAX_BYTES_PER_CELL = env_int("SUBMISSION_MAX_BYTES_PER_CELL", 48)
SUBMISSION_MIN_READ_BYTES = env_int("SUBMISSION_MIN_READ_BYTES", 1024 * 1024)
# The sweep re-enqueues submissions queued longer than this (the broker lost them).
SWEEP_REQUEUE_AFTER_SECONDS = env_int("SWEEP_REQUEUE_AFTER_SECONDS", 120)
# A running submission is declared "worker lost" this long after the hard time limit.
SUBMISSION_LEASE_MARGIN_SECONDS = env_int("SUBMISSION_LEASE_MARGIN_SECONDS", 60)
# A file whose scoring kills the worker this many times fails as a platform error.
SUBMISSION_MAX_ATTEMPTS = env_int("SUBMISSION_MAX_ATTEMPTS", 3)
# The real MUDI test set, when it is somewhere other than ../shared/data/mudi/test.csv.
MUDI_TRUTH_PATH = env_str("MUDI_TRUTH_PATH")
# MUDI's drug information (name, formula, SMILES, description) for the drug pages: a path or an
# http(s) URL read by ``manage.py load_drugs``; empty: <SHARED_DATA_DIR>/data/mudi/drug_info.json.
DRUG_INFO_SOURCE = env_str("DRUG_INFO_SOURCE")
FILE_UPLOAD_MAX_MEMORY_SIZE = 2 * 1024 * 1024
# The whole request body's cap, enforced while it streams (leaderboard/submissions/uploads.py);
# set the proxy's limit to match (docs/deploy.md: nginx client_max_body_size).
MAX_UPLOAD_BYTES = env_int("MAX_UPLOAD_BYTES", SUBMISSION_MAX_BYTES + 1024 * 1024)
MAX_CONCURRENT_UPLOADS = env_int("MAX_CONCURRENT_UPLOADS", 2)
FILE_UPLOAD_HANDLERS = [
    "leaderboard.submissions.uploads.CappedUploadHandler",  # first: it stops the others storing bytes
    "django.core.files.uploadhandler.MemoryFileUploadHandler",
    "django.core.files.uploadhandler.TemporaryFileUploadHandler",
]
DATA_UPLOAD_MAX_MEMORY_SIZE = 5 * 1024 * 1024

# Security headers. HTTPS-only settings switch on with SECURE=1 behind TLS.
SECURE = env_bool("SECURE", False)
SESSION_COOKIE_SECURE = SECURE
CSRF_COOKIE_SECURE = SECURE
SECURE_SSL_REDIRECT = SECURE
SECURE_HSTS_SECONDS = 31536000 if SECURE else 0
# Only from a trusted proxy: leaderboard.middleware.ClientAddressMiddleware drops it from anyone else.
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if SECURE else None
# The proxies in front of the site: a count ("1": exactly one, and the site is reachable only through
# it) or their addresses and networks ("127.0.0.1,10.0.0.0/24"); empty: none, REMOTE_ADDR is the client.
# Every per-address limit, the API's throttles and the security log take the client's address from
# X-Forwarded-For through it (leaderboard.middleware.client_ip); nobody else's header counts.
TRUSTED_PROXIES = env_str("TRUSTED_PROXIES")
# A health probe (the container's own, a load balancer's) asks over plain HTTP: no redirect.
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
# HSTS for subdomains and the preload list commit every other site on the operator's
# domain to HTTPS; that is their decision, not this site's, so check --deploy keeps quiet.
SILENCED_SYSTEM_CHECKS = ["security.W005", "security.W021"]
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"

# The JSON API (/api/v1/, docs/api.md): bearer tokens only, problem+json errors, per-token rate limits.
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": ["leaderboard.api.authentication.BearerTokenAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_THROTTLE_CLASSES": ["leaderboard.api.throttling.TokenRateThrottle"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["rest_framework.parsers.JSONParser"],
    "DEFAULT_SCHEMA_CLASS": "leaderboard.api.openapi.ApiSchema",
    "EXCEPTION_HANDLER": "leaderboard.api.problems.handler",
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
}
# Requests per token (per address without a token), and uploads per token; "N/second|minute|hour|day".
API_RATE_LIMITS = {
    "token": env_str("API_RATE_LIMIT", "600/minute"),
    "upload": env_str("API_UPLOAD_RATE_LIMIT", "30/minute"),
}
SPECTACULAR_SETTINGS = {
    "TITLE": "DDI Leaderboard API",
    "DESCRIPTION": "Tasks, leaderboards and submissions. Authenticate with 'Authorization: Bearer ddi_...'; "
    "errors are RFC 9457 problem documents.",  # leaderboard.api.schemas.link_the_guide adds the guide's link
    "VERSION": "1",
    "OAS_VERSION": "3.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # The reference page's Swagger UI is served from the installed sidecar package: no CDN.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    # Two choice sets are both called "status" (a submission's and a registration's): name each.
    "ENUM_NAME_OVERRIDES": {
        "SubmissionStatusEnum": ["queued", "running", "scored", "failed"],
        "RegistrationStatusEnum": ["pending", "approved", "rejected", "disqualified"],
    },
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "leaderboard.api.openapi.add_problem_responses",
        "leaderboard.api.schemas.link_the_guide",
    ],
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    "loggers": {"django.db.backends": {"level": "WARNING"}},
}
