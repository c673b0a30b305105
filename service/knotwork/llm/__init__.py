"""The model boundary: LlamaIndex's chat and embedding clients, providers, structured output."""
