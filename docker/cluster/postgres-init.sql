-- The cluster profile's mtk keeps its platform in its own database of the same server.
CREATE DATABASE mtk_cluster;
