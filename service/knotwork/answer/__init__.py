"""Evidence into a cited answer: the prompt, one chat call, the citation check."""
