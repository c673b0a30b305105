FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /app

COPY pyproject.toml README.md ./
COPY service ./service
COPY cypher ./cypher
RUN pip install . && useradd --create-home --uid 10001 knotwork

USER knotwork
EXPOSE 8000
CMD ["knotwork", "serve"]
