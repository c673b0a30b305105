FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /app

# KNOTWORK_EXTRAS=local-embed adds in-process embeddings; torch then comes from PyTorch's
# CPU-only index (about 200 MB rather than 3 GB of CUDA libraries).
ARG KNOTWORK_EXTRAS=""
COPY pyproject.toml README.md ./
COPY service ./service
COPY cypher ./cypher
RUN if [ -n "$KNOTWORK_EXTRAS" ]; then \
      pip install torch --index-url https://download.pytorch.org/whl/cpu && \
      pip install ".[$KNOTWORK_EXTRAS]"; \
    else \
      pip install .; \
    fi && useradd --create-home --uid 10001 knotwork

USER knotwork
EXPOSE 8000
CMD ["knotwork", "serve"]
