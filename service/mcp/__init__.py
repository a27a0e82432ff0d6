"""The MCP server (`smq mcp`): the paper's three tools and the exploration tools over the Model Context Protocol."""
