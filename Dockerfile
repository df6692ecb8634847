# One image for web (gunicorn), Celery worker and Celery beat; docker-compose.yml picks the command.

# --- builder: a virtualenv with the pinned runtime requirements -------------------------
FROM python:3.11-slim-bookworm AS builder
ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1
RUN python -m venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH
COPY requirements.txt /tmp/requirements.txt
RUN pip install -r /tmp/requirements.txt

# --- runtime: slim, non-root, static files collected at build --------------------------
FROM python:3.11-slim-bookworm AS runtime
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    DEBUG=0 \
    VAR_DIR=/var/lib/leaderboard \
    STATIC_ROOT=/app/staticfiles \
    MEDIA_ROOT=/data/media \
    PRIVATE_STORAGE_ROOT=/data/private
# RDKit's drawing module (manage.py load_drugs) links libXrender, which the slim image lacks.
RUN apt-get update \
    && apt-get install --no-install-recommends -y libxrender1 \
    && rm -rf /var/lib/apt/lists/*
RUN groupadd --system app \
    && useradd --system --gid app --home-dir /app --shell /usr/sbin/nologin app \
    && mkdir -p /var/lib/leaderboard /data/media /data/private \
    && chown app:app /var/lib/leaderboard /data/media /data/private
COPY --from=builder /opt/venv /opt/venv
WORKDIR /app
# The code stays owned by root: the app user can read it but not change it.
COPY . /app
# A throwaway key just for this step (settings refuse DEBUG=0 with the default or a short key);
# the real SECRET_KEY comes from the environment at run time.
RUN SECRET_KEY=collectstatic-at-build-time-only-a-throwaway-key-that-signs-nothing VAR_DIR=/tmp/build-var python manage.py collectstatic --noinput \
    && rm -rf /tmp/build-var
USER app
EXPOSE 8000
# Gunicorn reads WEB_CONCURRENCY for its number of worker processes.
CMD ["gunicorn", "leaderboard.wsgi:application", "--bind", "0.0.0.0:8000", "--access-logfile", "-", "--timeout", "120"]
